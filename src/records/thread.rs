//! The conversation tree as JSON: one record per tree, then one per
//! problem (orphan, cycle, duplicate id); and the collection of messages
//! into tree nodes, each copy of a message counted once.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::protocols::Found;
use crate::thread::{Forest, Names, Node};

/// How deep a tree is nested in JSON before its deeper replies continue
/// as trees of their own: the output stays linear in the number of
/// messages, however deep the conversation. (32 levels nest 66 deep in
/// JSON, under the 128 that common parsers allow.)
pub const DEPTH_CAP: usize = 32;

/// One record of `thread --format json`, tagged by `type`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Line<'a> {
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
        /// For an orphan: the one id among the inputs its parent is one or
        /// two characters away from (a slip when retyping it).
        #[serde(skip_serializing_if = "Option::is_none")]
        did_you_mean: Option<&'a str>,
    },
}

#[derive(Serialize)]
pub struct JsonTree<'a> {
    #[serde(flatten)]
    node: &'a Node,
    children: Vec<JsonTree<'a>>,
    /// The replies are not nested here (the depth cap): they follow as
    /// trees of their own, `continued_from` this message.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    continued: bool,
}

#[derive(Serialize, Clone, Copy)]
pub struct Continued<'a> {
    id: Option<&'a str>,
    depth: usize,
}

/// A subtree left for later by the depth cap: its root and the depth of its
/// parent in the original tree.
struct Cut {
    node: usize,
    parent_depth: usize,
}

/// The messages of a conversation as tree nodes, keeping only what the
/// tree shows of each (ids, links, a summary). The same message archived
/// twice (same id, same content) is one node; the same id on different
/// content stays two (a duplicate-id problem).
#[derive(Default)]
pub struct Collector {
    /// Each copy known by a digest of its id and content, pointing at the
    /// node of its first copy.
    first_copy: HashMap<[u8; 32], usize>,
    pub nodes: Vec<Node>,
    names: Names,
}

/// A message that repeats one already collected.
pub struct Copy<'a> {
    pub id: String,
    pub first: &'a Node,
}

impl Collector {
    /// Adds a message; returns the first copy when it is one again.
    pub fn add(&mut self, source: &str, found: &Found) -> Option<Copy<'_>> {
        let m = found.to_message()?;
        if let (Some(id), Some(text)) = (&m.id, found.canonical()) {
            let mut hasher = Sha256::new();
            hasher.update(id.as_bytes());
            hasher.update([0]);
            hasher.update(text.as_bytes());
            match self.first_copy.entry(hasher.finalize().into()) {
                Entry::Vacant(slot) => {
                    slot.insert(self.nodes.len());
                }
                Entry::Occupied(first) => {
                    return Some(Copy {
                        id: id.clone(),
                        first: &self.nodes[*first.get()],
                    });
                }
            }
        }
        let summary = crate::output::summary(&m.body_text(), 60);
        self.nodes
            .push(Node::of(&m, summary, source, found.line, &mut self.names));
        None
    }

    /// The nodes, the digests dropped.
    pub fn into_nodes(self) -> Vec<Node> {
        self.nodes
    }
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

/// Every record of the forest, in order: the trees (each followed by what
/// continues below its depth cap), then the orphans, cycles and duplicate ids.
pub fn each_line<E>(
    nodes: &[Node],
    f: &Forest,
    emit: &mut dyn FnMut(&Line<'_>) -> Result<(), E>,
) -> Result<(), E> {
    for &root in &f.roots {
        let mut pending = std::collections::VecDeque::from([(root, None::<Continued>, 0)]);
        while let Some((node, continued_from, base)) = pending.pop_front() {
            let mut cuts = Vec::new();
            let tree = json_tree(node, 0, base, f, nodes, &mut cuts);
            emit(&Line::Tree {
                thread: nodes[root].thread.as_deref(),
                orphan: continued_from.is_none() && f.orphans.contains(&node),
                continued_from,
                root: tree,
            })?;
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
    let guesses = crate::thread::parent_guesses(nodes, &f.orphans);
    for &o in &f.orphans {
        emit(&Line::Problem {
            problem: "orphan",
            id: nodes[o].parent.as_deref(),
            messages: vec![&nodes[o]],
            did_you_mean: guesses.get(&o).and_then(|&g| nodes[g].id.as_deref()),
        })?;
    }
    for c in &f.cycles {
        emit(&Line::Problem {
            problem: "cycle",
            id: None,
            messages: c.iter().map(|&i| &nodes[i]).collect(),
            did_you_mean: None,
        })?;
    }
    for (id, list) in &f.duplicates {
        emit(&Line::Problem {
            problem: "duplicate-id",
            id: Some(id),
            messages: list.iter().map(|&i| &nodes[i]).collect(),
            did_you_mean: None,
        })?;
    }
    Ok(())
}
