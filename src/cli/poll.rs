//! `aiproto poll collate`: tally the answers to POLL envelopes.

use std::io::{BufWriter, Write};

use super::args::{GlobalArgs, PollArgs, PollCommand};
use super::common;
use crate::exit::{CmdResult, ExitStatus};

use crate::operations::ReadOptions;
use crate::output::{self, Format, Painter, Stream, escape_controls as esc};
use crate::poll;

pub fn run(cmd: &PollCommand, g: &GlobalArgs) -> CmdResult {
    match cmd {
        PollCommand::Collate(args) => collate(args, g),
    }
}

fn collate(args: &PollArgs, g: &GlobalArgs) -> CmdResult {
    // The inputs are read piece by piece; of each message only what the
    // collation reads is kept (POLLs, the answers of RESPONDs, every id).
    let mut gathered = poll::Gathered::default();
    let status = common::each_message(
        &args.input,
        &ReadOptions::default(),
        &mut |_, _, _| {},
        &mut |source, found| {
            if let Some(m) = found.to_message() {
                gathered.add(source, found.line, found.is_valid(false), m);
            }
            Ok(())
        },
    )?;
    let results = gathered.collate();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let p = Painter::new(g.color, Stream::Stdout);
    for c in &results {
        match g.format {
            Format::Json => output::write_json_line(&mut out, c)?,
            Format::Human => {
                writeln!(
                    out,
                    "{} {} {}",
                    p.accent("POLL"),
                    p.bold(&esc(&c.poll_id)),
                    p.dim(&format!("({}:{})", esc(&c.source), c.line))
                )?;
                writeln!(out, "  {}", esc(&c.question))?;
                let total: usize = c.answers.iter().map(|a| a.count).sum();
                for a in &c.answers {
                    writeln!(
                        out,
                        "  {:>3} × {}  {}",
                        a.count,
                        p.bold(&esc(&a.answer)),
                        p.dim(&esc(&a.respondents.join(", ")))
                    )?;
                }
                if total == 0 {
                    writeln!(out, "  {}", p.dim("no answers yet"))?;
                }
                if !c.missing.is_empty() {
                    writeln!(
                        out,
                        "  {} {}",
                        p.warning("not answered:"),
                        esc(&c.missing.join(", "))
                    )?;
                }
                for n in &c.not_counted {
                    let why = match n.why {
                        "no-option" => format!("matches none of {}", c.options.join(" | ")),
                        "not-asked" => "was not asked".to_string(),
                        "invalid" => "the reply is invalid (see `aiproto validate`)".to_string(),
                        _ => "answers a message of this thread that is not among the inputs (another POLL?)".to_string(),
                    };
                    writeln!(
                        out,
                        "  {} {} ({}:{}): {} — {why}",
                        p.warning("not counted:"),
                        p.bold(&esc(&n.respondent)),
                        esc(&n.source),
                        n.line,
                        esc(&crate::output::summary(&n.answer, 60))
                    )?;
                }
                if !c.changed.is_empty() {
                    writeln!(
                        out,
                        "  {} {}",
                        p.dim("answered more than once (last counts):"),
                        esc(&c.changed.join(", "))
                    )?;
                }
            }
        }
    }
    out.flush()?;
    if results.is_empty() {
        eprintln!("aiproto: error: no POLL envelope with a message id among the inputs");
        return Ok(ExitStatus::Invalid);
    }
    Ok(status)
}
