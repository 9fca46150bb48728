//! `aiproto thread`: the conversation tree of many envelopes.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{BufWriter, Write};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::args::{GlobalArgs, ThreadArgs};
use super::common;
use crate::exit::{CmdResult, ExitStatus};
use crate::output::{self, ColorChoice, Format, Painter, Stream, escape_controls as esc};
use crate::thread::{self, Forest, Node, Tree};

/// `--format json`: one line per tree, then one per problem, tagged by `type`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line<'a> {
    Tree {
        thread: Option<&'a str>,
        orphan: bool,
        root: JsonTree<'a>,
    },
    Problem {
        problem: &'static str,
        id: Option<&'a str>,
        messages: Vec<&'a Node>,
    },
}

#[derive(Serialize)]
struct JsonTree<'a> {
    #[serde(flatten)]
    node: &'a Node,
    children: Vec<JsonTree<'a>>,
}

pub fn run(args: &ThreadArgs, g: &GlobalArgs) -> CmdResult {
    let (docs, mut status) = common::read_all(&args.input)?;
    // The same message archived twice (same id, same content) is one
    // message: shown once, with a warning. The same id on different
    // content stays an error below.
    let mut first_copy: HashMap<(String, [u8; 32]), (String, usize)> = HashMap::new();
    let nodes: Vec<Node> = common::messages(&docs)
        .filter(|(source, found, m)| {
            let (Some(id), Some(text)) = (m.id.clone(), found.render()) else {
                return true;
            };
            let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
            match first_copy.entry((id, digest)) {
                Entry::Vacant(slot) => {
                    slot.insert((source.to_string(), found.line));
                    true
                }
                Entry::Occupied(first) => {
                    let (first_source, first_line) = first.get();
                    eprintln!(
                        "aiproto: warning: {}:{}: message {} is a copy of the one at {}:{first_line} (shown once)",
                        esc(source),
                        found.line,
                        esc(&first.key().0),
                        esc(first_source)
                    );
                    false
                }
            }
        })
        .map(|(source, found, m)| Node {
            summary: common::summary(&m.body_text(), 60),
            id: m.id,
            parent: m.parent,
            thread: m.thread,
            sender: m.sender.unwrap_or_default(),
            receiver: m.recipient.unwrap_or_default(),
            intent: m.intent.map(|i| i.as_str().to_string()),
            source: source.to_string(),
            line: found.line,
        })
        .collect();
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

fn json_tree<'a>(t: &Tree, nodes: &'a [Node]) -> JsonTree<'a> {
    JsonTree {
        node: &nodes[t.node],
        children: t.children.iter().map(|c| json_tree(c, nodes)).collect(),
    }
}

fn write_json(out: &mut impl Write, nodes: &[Node], f: &Forest) -> std::io::Result<()> {
    for t in &f.roots {
        let root = &nodes[t.node];
        let line = Line::Tree {
            thread: root.thread.as_deref(),
            orphan: f.orphans.contains(&t.node),
            root: json_tree(t, nodes),
        };
        output::write_json_line(out, &line)?;
    }
    for &o in &f.orphans {
        output::write_json_line(
            out,
            &Line::Problem {
                problem: "orphan",
                id: nodes[o].parent.as_deref(),
                messages: vec![&nodes[o]],
            },
        )?;
    }
    for c in &f.cycles {
        output::write_json_line(
            out,
            &Line::Problem {
                problem: "cycle",
                id: None,
                messages: c.iter().map(|&i| &nodes[i]).collect(),
            },
        )?;
    }
    for (id, list) in &f.duplicates {
        output::write_json_line(
            out,
            &Line::Problem {
                problem: "duplicate-id",
                id: Some(id),
                messages: list.iter().map(|&i| &nodes[i]).collect(),
            },
        )?;
    }
    Ok(())
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
    for t in &f.roots {
        let thread = nodes[t.node].thread.as_deref();
        if !threads.contains(&thread) {
            threads.push(thread);
        }
    }
    for thread in threads {
        writeln!(
            out,
            "{} {}",
            p.dim("thread"),
            p.bold(&esc(thread.unwrap_or("(none)")))
        )?;
        let roots: Vec<&Tree> = f
            .roots
            .iter()
            .filter(|t| nodes[t.node].thread.as_deref() == thread)
            .collect();
        for (i, t) in roots.iter().enumerate() {
            draw(out, p, nodes, t, "", i + 1 == roots.len())?;
        }
    }
    out.flush()?;
    let err = Painter::new(color, Stream::Stderr);
    for &o in &f.orphans {
        let n = &nodes[o];
        eprintln!(
            "{}:{}: {}: parent {} is not among the inputs (orphan)",
            esc(&n.source),
            n.line,
            err.warning("warning"),
            esc(n.parent.as_deref().unwrap_or(""))
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

fn draw(
    out: &mut impl Write,
    p: &Painter,
    nodes: &[Node],
    t: &Tree,
    indent: &str,
    last: bool,
) -> std::io::Result<()> {
    let n = &nodes[t.node];
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
    for (i, c) in t.children.iter().enumerate() {
        draw(out, p, nodes, c, &child_indent, i + 1 == t.children.len())?;
    }
    Ok(())
}
