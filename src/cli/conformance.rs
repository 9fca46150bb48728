//! `aiproto conformance`: list or write the kit's vectors, and grade a
//! parser, a verifier, an HTTP receiver or a live HSP agent against them.

use std::io::{BufWriter, Write};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::args::{
    AdapterChoice, BaselineArgs, ConformanceCommand, ConformanceHttpArgs, ConformanceMqttArgs,
    ConformanceRunArgs, ConformanceVectorsArgs, GlobalArgs, VectorSelectArgs,
};
use std::collections::BTreeMap;

use crate::conformance::agent::Agent;
use crate::conformance::baseline::{self, Baseline, Comparison};
use crate::conformance::grade::{self, Observed, Outcome};
use crate::conformance::http::{Endpoint, protocol_of_url};
use crate::conformance::parser::{Adapter, Implementation, scratch_kit};
use crate::conformance::records;
use crate::conformance::vectors::{self, AgentAnswer, KIT_VERSION, Kind, Level, Selection, Vector};
use crate::exit::{CliError, CmdResult, ExitStatus};
use crate::output::{self, Format, FormatChoice, Painter, Stream};
use crate::report::{self, Finding, Tool, Verdict};

pub fn run(command: &ConformanceCommand, g: &GlobalArgs) -> CmdResult {
    match command {
        ConformanceCommand::Vectors(a) => list_or_write(a, g),
        ConformanceCommand::Parser(a) => run_command(a, &[Kind::Message, Kind::Damage], g),
        ConformanceCommand::Verifier(a) => run_command(a, &[Kind::Signature], g),
        ConformanceCommand::Http(a) => run_http(a, g),
        ConformanceCommand::Mqtt(a) => run_mqtt(a, g),
    }
}

fn selection(select: &VectorSelectArgs, kinds: &[Kind]) -> Selection {
    Selection {
        protocols: select.protocols.clone(),
        levels: select.levels.clone(),
        kinds: kinds.to_vec(),
        only: select.only.clone(),
    }
}

/// The selected vectors; none is a usage error, never a pass.
fn selected(selection: &Selection) -> Result<Vec<Vector>, CliError> {
    let chosen = selection.of(vectors::all());
    if chosen.is_empty() {
        return Err(CliError::usage(
            "no vector of the kit matches this selection: nothing to grade",
        )
        .with_hint("`aiproto conformance vectors` lists them"));
    }
    Ok(chosen)
}

fn list_or_write(args: &ConformanceVectorsArgs, g: &GlobalArgs) -> CmdResult {
    if g.format_choice.report().is_some() {
        return Err(CliError::usage(
            "`conformance vectors` lists as human or json; the CI reports and the page are for a graded run",
        ));
    }
    let chosen = selected(&selection(&args.select, &[]))?;
    if let Some(dir) = &args.out {
        let n =
            vectors::write_kit(dir, &chosen).map_err(|e| CliError::new(ExitStatus::Usage, e))?;
        if !g.quiet {
            eprintln!(
                "aiproto: wrote {n} vectors of conformance kit {KIT_VERSION} and manifest.json to {}",
                dir.display()
            );
        }
        return Ok(ExitStatus::Ok);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for v in &chosen {
        match g.format {
            Format::Json => output::write_json_line(&mut out, v)?,
            Format::Human => writeln!(
                out,
                "{:<58} {:<11} {:<6} {}",
                v.id,
                v.level.name(),
                v.expect.name(),
                v.section
            )?,
        }
    }
    out.flush()?;
    Ok(ExitStatus::Ok)
}

fn timeout(secs: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            CliError::usage(format!(
                "--timeout {secs}: give a number of seconds above 0"
            ))
        })
}

fn run_command(args: &ConformanceRunArgs, kinds: &[Kind], g: &GlobalArgs) -> CmdResult {
    if args.codes && args.adapter != AdapterChoice::Json {
        return Err(CliError::usage(
            "--codes reads the codes from COMMAND's JSON: add --adapter json",
        ));
    }
    let chosen = selected(&selection(&args.select, kinds))?;
    let against = against(&args.baseline)?;
    let implementation = Implementation {
        argv: args.command.clone(),
        adapter: match args.adapter {
            AdapterChoice::Exit => Adapter::Exit,
            AdapterChoice::Json => Adapter::Json,
        },
        timeout: timeout(args.timeout)?,
    };
    let (_scratch, kit) = scratch_kit(&chosen).map_err(|e| {
        CliError::new(
            ExitStatus::Transport,
            anyhow::anyhow!("writing the vectors: {e}"),
        )
    })?;
    let started = Instant::now();
    // The first vector alone: a command that cannot be started grades
    // nothing, and is said once, not 400 times. Its outcome is kept.
    let mut rest = chosen.into_iter();
    let first = rest.next().expect("a selection holds at least one vector");
    let first_seen = implementation.observe(&first, &kit);
    if let Observed::Broken { why } = &first_seen
        && why.starts_with("cannot run")
    {
        return Err(CliError::usage(why));
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| CliError::new(ExitStatus::Transport, e))?;
    let rest: Vec<Vector> = rest.collect();
    let mut outcomes = vec![grade::grade(first, first_seen, args.codes)];
    outcomes.extend(pool.install(|| {
        rest.into_par_iter()
            .map(|v| {
                let observed = implementation.observe(&v, &kit);
                grade::grade(v, observed, args.codes)
            })
            .collect::<Vec<Outcome>>()
    }));
    finish(
        &outcomes,
        started.elapsed(),
        &against,
        &args.command.join(" "),
        g,
    )
}

fn run_http(args: &ConformanceHttpArgs, g: &GlobalArgs) -> CmdResult {
    let protocol = match (&args.protocol, protocol_of_url(&args.url)) {
        (Some(p), _) => p.clone(),
        (None, Some(p)) => p.to_string(),
        (None, None) => {
            return Err(CliError::usage(format!(
                "{}: which protocol does it receive? Give --protocol crosstalk or hsp",
                args.url
            )));
        }
    };
    let chosen = selected(&Selection {
        protocols: vec![protocol.clone()],
        levels: args.levels.clone(),
        kinds: vec![Kind::Message, Kind::Damage],
        only: args.only.clone(),
    })?;
    // The binding sends UTF-8 text: a vector saved in another encoding (a
    // Notepad "Unicode" save) cannot be sent as the binding says, and one a
    // reader accepts from a file is no verdict on a receiver.
    let (chosen, skipped): (Vec<Vector>, Vec<Vector>) = chosen.into_iter().partition(|v| {
        v.expect == vectors::Expect::Reject || std::str::from_utf8(v.bytes()).is_ok()
    });
    if !skipped.is_empty() && !g.quiet {
        let ids: Vec<&str> = skipped.iter().map(|v| v.id.as_str()).collect();
        eprintln!(
            "aiproto: left out {} vector(s) that are not UTF-8 text, which the HTTP binding cannot carry: {}",
            skipped.len(),
            ids.join(", ")
        );
    }
    let endpoint = Endpoint {
        url: args.url.clone(),
        protocol,
        timeout: timeout(args.timeout)?,
    };
    let url = args.url.clone();
    // The statuses of the first answers: when every one of them says the
    // path is not there, the URL is wrong and the run says so and stops.
    let statuses = std::cell::RefCell::new(Vec::new());
    let observe = |v: &Vector| {
        let (observed, status) = endpoint.observe_status(v);
        statuses.borrow_mut().push(status);
        observed
    };
    let wrong_place = || wrong_endpoint(&url, &endpoint.protocol, &statuses.borrow());
    one_at_a_time(
        chosen,
        observe,
        |why| why.contains(&url),
        wrong_place,
        &against(&args.baseline)?,
        &crate::transport::secrets::redact(&url),
        g,
    )
}

/// How many answers are enough to say that a URL is not the endpoint.
const NOT_THERE_AFTER: usize = 5;

/// Why `url` is probably not the receiver's endpoint, when the first
/// [`NOT_THERE_AFTER`] answers are all 404 or 405 (or the whole run, if
/// shorter): every vector would fail for the same reason, none for its own.
fn wrong_endpoint(url: &str, protocol: &str, statuses: &[Option<u16>]) -> Option<String> {
    let first = statuses.get(..NOT_THERE_AFTER.min(statuses.len()))?;
    let not_there = |s: &Option<u16>| matches!(s, Some(404 | 405));
    if first.is_empty() || statuses.len() < NOT_THERE_AFTER || !first.iter().all(not_there) {
        return None;
    }
    let paths = crate::conformance::http::ROUTES
        .iter()
        .find(|(p, _)| *p == protocol)
        .map(|(_, paths)| paths.join(" or "))
        .unwrap_or_default();
    Some(format!(
        "{url} answered 404 or 405 to the first {NOT_THERE_AFTER} vectors: is this the endpoint? \
         {protocol}'s HTTP binding is POST {paths} (give the URL with its path)"
    ))
}

fn run_mqtt(args: &ConformanceMqttArgs, g: &GlobalArgs) -> CmdResult {
    let broker = crate::transport::mqtt::MqttUri::parse(&args.broker).map_err(|why| {
        CliError::usage(format!(
            "{}: {why}",
            crate::transport::secrets::redact(&args.broker)
        ))
    })?;
    let chosen = selected(&Selection {
        protocols: vec!["hsp".into()],
        levels: args.levels.clone(),
        kinds: vec![Kind::Agent],
        only: args.only.clone(),
    })?;
    // A TaskRequest needs a capability the agent offers: without one the
    // probe is left out, said, and not counted.
    let (chosen, left_out): (Vec<Vector>, Vec<Vector>) = chosen
        .into_iter()
        .partition(|v| args.capability.is_some() || v.answer != Some(AgentAnswer::TaskResult));
    if !left_out.is_empty() && !g.quiet {
        eprintln!(
            "aiproto: left out {}: give --capability ID (one the agent offers) to grade its TaskResults",
            left_out
                .iter()
                .map(|v| v.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if chosen.is_empty() {
        return Err(CliError::usage("no probe left to grade: nothing to grade"));
    }
    let agent = Agent {
        broker,
        ca_file: args.cafile.clone(),
        id: args.agent.clone(),
        capability: args.capability.clone(),
        timeout: timeout(args.timeout)?,
    };
    let address = format!("{}:{}", agent.broker.host, agent.broker.port);
    one_at_a_time(
        chosen,
        |v| agent.observe(v),
        |why| why.contains(&address),
        || None,
        &against(&args.baseline)?,
        &format!(
            "the agent {} at {}",
            args.agent,
            crate::transport::secrets::redact(&args.broker)
        ),
        g,
    )
}

/// Grades `chosen` in order, one at a time (a receiver or an agent sees
/// them as a sequence); when the first finds the peer unreachable
/// (`unreachable` says so of its reason), or `wrong_place` says after an
/// answer that the run is talking to the wrong place, the run stops with
/// exit 3: a run that reached nobody has graded nothing.
fn one_at_a_time(
    chosen: Vec<Vector>,
    observe: impl Fn(&Vector) -> Observed,
    unreachable: impl Fn(&str) -> bool,
    wrong_place: impl Fn() -> Option<String>,
    against: &Against,
    what: &str,
    g: &GlobalArgs,
) -> CmdResult {
    let started = Instant::now();
    let mut outcomes = Vec::with_capacity(chosen.len());
    for (n, v) in chosen.into_iter().enumerate() {
        let observed = observe(&v);
        if let Some(why) = wrong_place() {
            return Err(CliError::new(
                ExitStatus::Transport,
                anyhow::anyhow!("{why}"),
            ));
        }
        if n == 0
            && let Observed::Broken { why } = &observed
            && unreachable(why)
        {
            return Err(CliError::new(
                ExitStatus::Transport,
                anyhow::anyhow!("{why}"),
            ));
        }
        outcomes.push(grade::grade(v, observed, false));
    }
    finish(&outcomes, started.elapsed(), against, what, g)
}

/// The run's baseline, read before anything runs (a typo in it stops the
/// run at once), and where to write the next one.
struct Against {
    read: Option<Baseline>,
    args: BaselineArgs,
}

fn against(args: &BaselineArgs) -> Result<Against, CliError> {
    Ok(Against {
        read: args
            .expected_failures
            .as_deref()
            .map(Baseline::read)
            .transpose()
            .map_err(CliError::usage)?,
        args: args.clone(),
    })
}

/// Prints the run in the chosen format; exit 0 only when every mandatory
/// vector passed — or, against a baseline, when nothing changed.
fn finish(
    outcomes: &[Outcome],
    took: Duration,
    against: &Against,
    what: &str,
    g: &GlobalArgs,
) -> CmdResult {
    let baseline = &against.args;
    let comparison = against.read.as_ref().map(|b| b.compare(outcomes));
    if let Some(format) = g.format_choice.report() {
        write_report(outcomes, format)?;
    } else if g.format_choice == FormatChoice::Html {
        let mut out = std::io::stdout().lock();
        out.write_all(crate::conformance::html::page(outcomes, what).as_bytes())?;
        out.flush()?;
    } else {
        match g.format {
            Format::Json => write_json(outcomes, comparison.as_ref())?,
            Format::Human => write_human(outcomes, took, g)?,
        }
    }
    if let Some(path) = &baseline.write_expected_failures {
        std::fs::write(path, baseline::written(outcomes)).map_err(|e| {
            CliError::new(
                ExitStatus::Transport,
                anyhow::anyhow!("--write-expected-failures {}: {e}", path.display()),
            )
        })?;
        if !g.quiet {
            let failed = outcomes.iter().filter(|o| !o.passed()).count();
            eprintln!(
                "aiproto: wrote the {failed} failing vector id(s) to {}",
                path.display()
            );
        }
    }
    let met = match &comparison {
        Some(comparison) => {
            if !g.quiet {
                say_comparison(comparison, baseline);
            }
            comparison.unchanged()
        }
        None => grade::mandatory_met(outcomes),
    };
    Ok(if met {
        ExitStatus::Ok
    } else {
        ExitStatus::Invalid
    })
}

/// The run against its baseline, on stderr.
fn say_comparison(c: &Comparison, baseline: &BaselineArgs) {
    let file = baseline
        .expected_failures
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    eprintln!(
        "aiproto: against {file}: {} expected failure(s) still fail, {} new, {} now pass{}",
        c.still_failing,
        c.new.len(),
        c.fixed.len(),
        if c.not_run > 0 {
            format!(" ({} listed but not in this run)", c.not_run)
        } else {
            String::new()
        }
    );
    for id in &c.new {
        eprintln!("  new failure: {id}");
    }
    for id in &c.fixed {
        eprintln!("  passes now (remove it from {file}): {id}");
    }
}

fn write_human(outcomes: &[Outcome], took: Duration, g: &GlobalArgs) -> std::io::Result<()> {
    let p = Painter::new(g.color, Stream::Stdout);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.passed()).collect();
    if !failed.is_empty() && !g.quiet {
        write_groups(&mut out, &failed, &p)?;
    }
    // The failures one by one, a section at a time (the kit's order inside one).
    let mut by_section: Vec<&Outcome> = failed.clone();
    by_section.sort_by(|a, b| a.vector.section.cmp(&b.vector.section));
    for o in by_section {
        let v = &o.vector;
        let Some((failure, why)) = &o.failure else {
            continue;
        };
        let label = if v.level == Level::Mandatory {
            p.error("FAIL")
        } else {
            p.warning("FAIL")
        };
        writeln!(
            out,
            "{label} {} {}\n     {}: {}\n     [{}]: {}",
            p.bold(&v.id),
            p.dim(&format!("({}, {})", v.level.name(), v.section)),
            p.dim("file"),
            v.kit_path().display(),
            failure.code(),
            output::escape_controls(why)
        )?;
    }
    if g.verbose {
        for o in outcomes.iter().filter(|o| o.passed()) {
            writeln!(out, "{} {}", p.good("pass"), o.vector.id)?;
        }
    }
    if !g.quiet {
        if !failed.is_empty() {
            writeln!(out)?;
        }
        for (protocol, grade) in grade::tally(outcomes) {
            let counts: Vec<String> = Level::ALL
                .iter()
                .filter(|l| grade.count(**l).total > 0)
                .map(|l| {
                    let c = grade.count(*l);
                    format!("{} {}/{}", l.name(), c.passed, c.total)
                })
                .collect();
            let compliance = match grade.compliance() {
                "none" => p.error("not conformant"),
                "mandatory" => p.warning("conformant (mandatory)"),
                _ => p.good("conformant (mandatory and recommended)"),
            };
            writeln!(
                out,
                "{protocol:<10} {:<58} {compliance}",
                counts.join(" · ")
            )?;
        }
        writeln!(
            out,
            "conformance kit {KIT_VERSION}: {} vectors, {} passed, {} failed ({:.1} s)",
            outcomes.len(),
            outcomes.len() - failed.len(),
            failed.len(),
            took.as_secs_f64()
        )?;
        if !failed.is_empty() {
            writeln!(
                out,
                "{}",
                p.dim("rerun one with --only ID (or a section, or a glob); `conformance vectors --out DIR` writes the files named above")
            )?;
        }
    }
    out.flush()
}

/// The failures counted by spec section and by cause, before the detail:
/// where to start, and whether one cause explains most of them.
fn write_groups(out: &mut impl Write, failed: &[&Outcome], p: &Painter) -> std::io::Result<()> {
    let mut sections: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut causes: BTreeMap<&'static str, (usize, &'static str)> = BTreeMap::new();
    for o in failed {
        let entry = sections.entry(o.vector.section.as_str()).or_default();
        entry.0 += 1;
        if o.vector.level == Level::Mandatory {
            entry.1 += 1;
        }
        if let Some((failure, _)) = &o.failure {
            causes
                .entry(failure.code())
                .or_insert((0, failure.meaning()))
                .0 += 1;
        }
    }
    let mut sections: Vec<(&str, (usize, usize))> = sections.into_iter().collect();
    sections.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    writeln!(out, "{}", p.bold("failures by spec section"))?;
    for (section, (all, mandatory)) in sections {
        let mandatory = format!("({mandatory} mandatory)");
        writeln!(out, "  {all:>4}  {mandatory:<16} {section}")?;
    }
    let mut causes: Vec<(&str, (usize, &str))> = causes.into_iter().collect();
    causes.sort_by(|a, b| (b.1).0.cmp(&(a.1).0).then(a.0.cmp(b.0)));
    writeln!(out, "{}", p.bold("failures by cause"))?;
    for (code, (n, meaning)) in causes {
        writeln!(out, "  {n:>4}  {code:<14} {meaning}")?;
    }
    writeln!(out)
}

fn write_json(outcomes: &[Outcome], comparison: Option<&Comparison>) -> std::io::Result<()> {
    let mut out = BufWriter::new(std::io::stdout().lock());
    for o in outcomes {
        output::write_json_line(&mut out, &records::vector(o))?;
    }
    output::write_json_line(&mut out, &records::summary(outcomes, comparison))?;
    out.flush()
}

/// A CI report: a test case per vector, a failure as a finding (an error
/// for a mandatory vector, a warning otherwise) at the vector's file.
fn write_report(outcomes: &[Outcome], format: report::ReportFormat) -> std::io::Result<()> {
    let out: Box<dyn Write> = Box::new(BufWriter::new(std::io::stdout().lock()));
    let mut report = report::open(
        format,
        Tool {
            command: "conformance",
        },
        out,
    );
    for o in outcomes {
        let v = &o.vector;
        let source = v.kit_path().to_string_lossy().into_owned();
        let diagnostic = records::finding(o);
        let findings = diagnostic
            .iter()
            .map(|d| Finding {
                diagnostic: d,
                severity: d.severity,
            })
            .collect();
        report.verdict(&Verdict {
            source: &source,
            index: Some(0),
            line: Some(1),
            kind: Some(format!("{} {}", v.protocol(), v.version)),
            id: Some(&v.id),
            valid: o.passed(),
            findings,
            omitted: 0,
        })?;
    }
    report.finish()
}
