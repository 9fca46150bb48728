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
use crate::protocols::ReadOptions;
use crate::thread::{self, Forest, Node};

/// How deep a tree is drawn (or nested in JSON) before its deeper replies
/// continue as trees of their own: every line stays short and the output
/// linear in the number of messages, however deep the conversation. (32
/// levels nest 66 deep in JSON, under the 128 that common parsers allow.)
const DEPTH_CAP: usize = 32;

/// `--format json`: one line per tree, then one per problem, tagged by `type`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line<'a> {
    Tree {
        thread: Option<&'a str>,
        orphan: bool,
        /// For a tree continued below the depth cap: the id of the message
        /// it answers and that message's depth in the original tree.
        #[serde(skip_serializing_if = "Option::is_none")]
        continued_from: Option<Continued<'a>>,
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
    /// The replies are not nested here (the depth cap): they follow as
    /// trees of their own, `continued_from` this message.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    continued: bool,
}

#[derive(Serialize, Clone, Copy)]
struct Continued<'a> {
    id: Option<&'a str>,
    depth: usize,
}

/// A subtree left for later by the depth cap: its root and the depth of its
/// parent in the original tree.
struct Cut {
    node: usize,
    parent_depth: usize,
}

pub fn run(args: &ThreadArgs, g: &GlobalArgs) -> CmdResult {
    // Only what the tree needs is kept of each message (ids, links, a
    // summary): the inputs are read piece by piece.
    // The same message archived twice (same id, same content) is one
    // message: shown once, with a warning. The same id on different
    // content stays an error below.
    // Each copy is known by a digest of its id and content, pointing at
    // the node of its first copy.
    let mut first_copy: HashMap<[u8; 32], usize> = HashMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut names = thread::Names::default();
    let mut status = common::each_message(
        &args.input,
        &ReadOptions::default(),
        &mut |_, _| {},
        &mut |source, found| {
            let Some(m) = found.to_message() else {
                return Ok(());
            };
            if let (Some(id), Some(text)) = (&m.id, found.render()) {
                let mut hasher = Sha256::new();
                hasher.update(id.as_bytes());
                hasher.update([0]);
                hasher.update(text.as_bytes());
                match first_copy.entry(hasher.finalize().into()) {
                    Entry::Vacant(slot) => {
                        slot.insert(nodes.len());
                    }
                    Entry::Occupied(first) => {
                        let first = &nodes[*first.get()];
                        eprintln!(
                            "aiproto: warning: {}:{}: message {} is a copy of the one at {}:{} (shown once)",
                            esc(source),
                            found.line,
                            esc(id),
                            esc(&first.source),
                            first.line
                        );
                        return Ok(());
                    }
                }
            }
            nodes.push(Node::of(
                &m,
                common::summary(&m.body_text(), 60),
                source,
                found.line,
                &mut names,
            ));
            Ok(())
        },
    )?;
    drop(first_copy);
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

/// A tree nested down to the depth cap; the replies below it are pushed
/// to `cuts`. (Recursion is bounded by the cap.)
fn json_tree<'a>(
    node: usize,
    depth: usize,
    base: usize,
    f: &Forest,
    nodes: &'a [Node],
    cuts: &mut Vec<Cut>,
) -> JsonTree<'a> {
    let replies = &f.children[node];
    let continued = depth == DEPTH_CAP && !replies.is_empty();
    let children = if continued {
        cuts.extend(replies.iter().map(|&c| Cut {
            node: c,
            parent_depth: base + depth,
        }));
        Vec::new()
    } else {
        replies
            .iter()
            .map(|&c| json_tree(c, depth + 1, base, f, nodes, cuts))
            .collect()
    };
    JsonTree {
        node: &nodes[node],
        children,
        continued,
    }
}

fn write_json(out: &mut impl Write, nodes: &[Node], f: &Forest) -> std::io::Result<()> {
    for &root in &f.roots {
        // The tree, then what continues below its depth cap, in order.
        let mut pending = std::collections::VecDeque::from([(root, None::<Continued>, 0)]);
        while let Some((node, continued_from, base)) = pending.pop_front() {
            let mut cuts = Vec::new();
            let tree = json_tree(node, 0, base, f, nodes, &mut cuts);
            let line = Line::Tree {
                thread: nodes[root].thread.as_deref(),
                orphan: continued_from.is_none() && f.orphans.contains(&node),
                continued_from,
                root: tree,
            };
            output::write_json_line(out, &line)?;
            for cut in cuts {
                let parent = f.parent(cut.node);
                let from = Continued {
                    id: parent.and_then(|p| nodes[p].id.as_deref()),
                    depth: cut.parent_depth,
                };
                pending.push_back((cut.node, Some(from), cut.parent_depth + 1));
            }
        }
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
