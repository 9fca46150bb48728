//! `aiproto thread`: the conversation tree of many envelopes.

use std::collections::HashMap;
use std::io::{BufWriter, Write};

use super::args::{GlobalArgs, ThreadArgs};
use super::common;
use crate::exit::{CmdResult, ExitStatus};
use crate::operations::ReadOptions;
use crate::output::{self, ColorChoice, Format, Painter, Stream, escape_controls as esc};
use crate::records::thread as records;
use crate::thread::{self, Forest, Node};

/// How deep a tree is drawn before its deeper replies continue as trees
/// of their own (as in JSON): every line stays short.
const DEPTH_CAP: usize = records::DEPTH_CAP;

/// A subtree left for later by the depth cap: its root and the depth of its
/// parent in the original tree.
struct Cut {
    node: usize,
    parent_depth: usize,
}

pub fn run(args: &ThreadArgs, g: &GlobalArgs) -> CmdResult {
    // Only what the tree needs is kept of each message (ids, links, a
    // summary): the inputs are read piece by piece. A copy of a message
    // already seen is shown once, with a warning.
    let mut collector = records::Collector::default();
    let mut status = common::each_message(
        &args.input,
        &ReadOptions::default(),
        &mut |_, _, _| {},
        &mut |source, found| {
            if let Some(copy) = collector.add(source, found) {
                eprintln!(
                    "aiproto: warning: {}:{}: message {} is a copy of the one at {}:{} (shown once)",
                    esc(source),
                    found.line,
                    esc(&copy.id),
                    esc(&copy.first.source),
                    copy.first.line
                );
            }
            Ok(())
        },
    )?;
    let nodes = collector.into_nodes();
    let forest = thread::build(&nodes);
    if !forest.cycles.is_empty() || !forest.duplicates.is_empty() {
        status = status.max(ExitStatus::Invalid);
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    match g.format {
        Format::Json => write_json(&mut out, &nodes, &forest)?,
        Format::Human => write_human(&mut out, g.color, &nodes, &forest)?,
    }
    out.flush()?;
    Ok(status)
}

fn write_json(out: &mut impl Write, nodes: &[Node], f: &Forest) -> std::io::Result<()> {
    records::each_line(nodes, f, &mut |line| output::write_json_line(out, line))
}

fn write_human(
    out: &mut impl Write,
    color: ColorChoice,
    nodes: &[Node],
    f: &Forest,
) -> std::io::Result<()> {
    let p = &Painter::new(color, Stream::Stdout);
    // Roots grouped by thread, threads in order of first appearance.
    let mut threads: Vec<Option<&str>> = Vec::new();
    let mut known = std::collections::HashSet::new();
    for &t in &f.roots {
        let thread = nodes[t].thread.as_deref();
        if known.insert(thread) {
            threads.push(thread);
        }
    }
    let mut roots_of: HashMap<Option<&str>, Vec<usize>> = HashMap::new();
    for &t in &f.roots {
        roots_of
            .entry(nodes[t].thread.as_deref())
            .or_default()
            .push(t);
    }
    for thread in threads {
        writeln!(
            out,
            "{} {}",
            p.dim("thread"),
            p.bold(&esc(thread.unwrap_or("(none)")))
        )?;
        let roots = roots_of.remove(&thread).unwrap_or_default();
        for (i, &t) in roots.iter().enumerate() {
            let mut cuts = Vec::new();
            let d = Drawing { p, nodes, f };
            d.draw(out, t, 0, 0, "", i + 1 == roots.len(), &mut cuts)?;
            // What lies below the depth cap continues under its parent's id.
            let mut pending: std::collections::VecDeque<Vec<Cut>> = [cuts].into();
            while let Some(group) = pending.pop_front() {
                let Some(first) = group.first() else {
                    continue;
                };
                let parent = f.parent(first.node);
                writeln!(
                    out,
                    "{} {} {}",
                    p.dim("continued: the replies to"),
                    p.accent(&esc(parent
                        .and_then(|p| nodes[p].id.as_deref())
                        .unwrap_or("(no id)"))),
                    p.dim(&format!("(depth {})", first.parent_depth))
                )?;
                for (i, cut) in group.iter().enumerate() {
                    let mut deeper = Vec::new();
                    let last = i + 1 == group.len();
                    d.draw(
                        out,
                        cut.node,
                        0,
                        cut.parent_depth + 1,
                        "",
                        last,
                        &mut deeper,
                    )?;
                    pending.push_back(deeper);
                }
            }
        }
    }
    out.flush()?;
    let err = Painter::new(color, Stream::Stderr);
    let guesses = crate::thread::parent_guesses(nodes, &f.orphans);
    for &o in &f.orphans {
        let n = &nodes[o];
        let parent = n.parent.as_deref().unwrap_or("");
        let guess = match guesses.get(&o).map(|&g| &nodes[g]) {
            Some(m) => format!(
                "; did you mean {} ({}:{}, {}→{})? Correct the parent line (a signed envelope must be signed again)",
                esc(m.id.as_deref().unwrap_or("")),
                esc(&m.source),
                m.line,
                esc(&m.sender),
                esc(&m.receiver)
            ),
            None => String::new(),
        };
        eprintln!(
            "{}:{}: {}: parent {} is not among the inputs (orphan){guess}",
            esc(&n.source),
            n.line,
            err.warning("warning"),
            esc(parent)
        );
    }
    for c in &f.cycles {
        let ids: Vec<&str> = c
            .iter()
            .map(|&i| nodes[i].id.as_deref().unwrap_or("?"))
            .collect();
        eprintln!(
            "{}: parent links form a cycle: {}",
            err.error("error"),
            esc(&ids.join(" → "))
        );
    }
    for (id, list) in &f.duplicates {
        let at: Vec<String> = list
            .iter()
            .map(|&i| format!("{}:{}", esc(&nodes[i].source), nodes[i].line))
            .collect();
        eprintln!(
            "{}: message id {} is used {} times: {}",
            err.error("error"),
            esc(id),
            list.len(),
            at.join(", ")
        );
    }
    Ok(())
}

struct Drawing<'a> {
    p: &'a Painter,
    nodes: &'a [Node],
    f: &'a Forest,
}

impl Drawing<'_> {
    /// Draws a tree down to the depth cap; the replies below it are pushed
    /// to `cuts` (recursion is bounded by the cap).
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        out: &mut impl Write,
        node: usize,
        depth: usize,
        base: usize,
        indent: &str,
        last: bool,
        cuts: &mut Vec<Cut>,
    ) -> std::io::Result<()> {
        let (p, n) = (self.p, &self.nodes[node]);
        let branch = if last { "└─ " } else { "├─ " };
        writeln!(
            out,
            "{indent}{branch}{} {}→{} {} {} {}",
            p.accent(&esc(n.id.as_deref().unwrap_or("(no id)"))),
            esc(&n.sender),
            esc(&n.receiver),
            p.bold(&esc(n.intent.as_deref().unwrap_or("?"))),
            esc(&n.summary),
            p.dim(&format!("({}:{})", esc(&n.source), n.line))
        )?;
        let child_indent = format!("{indent}{}", if last { "   " } else { "│  " });
        let replies = &self.f.children[node];
        if depth == DEPTH_CAP && !replies.is_empty() {
            writeln!(
                out,
                "{child_indent}└─ {}",
                p.dim(&format!("… {} more, continued below", replies.len()))
            )?;
            cuts.extend(replies.iter().map(|&c| Cut {
                node: c,
                parent_depth: base + depth,
            }));
            return Ok(());
        }
        for (i, &c) in replies.iter().enumerate() {
            let last = i + 1 == replies.len();
            self.draw(out, c, depth + 1, base, &child_indent, last, cuts)?;
        }
        Ok(())
    }
}
