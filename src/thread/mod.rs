//! Conversation trees: messages linked by their `parent` ids, with orphans,
//! cycles and duplicate ids found.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

pub mod near;

/// One message as a node of a conversation: its ids and links, and what a
/// tree shows of it. The names many nodes share (thread, parties, intent,
/// source) are held once ([`Names`]).
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub id: Option<String>,
    pub parent: Option<String>,
    pub thread: Option<Arc<str>>,
    pub sender: Arc<str>,
    pub receiver: Arc<str>,
    pub intent: Option<Arc<str>>,
    /// The first non-empty line of the body, for display.
    pub summary: String,
    pub source: Arc<str>,
    pub line: usize,
}

/// Names shared by many nodes, each held once.
#[derive(Debug, Default)]
pub struct Names(HashSet<Arc<str>>);

impl Names {
    /// The one copy of `name`.
    pub fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(held) = self.0.get(name) {
            return held.clone();
        }
        let held: Arc<str> = name.into();
        self.0.insert(held.clone());
        held
    }
}

impl Node {
    /// A message as a node, found at `source`:`line`.
    pub fn of(
        m: &crate::model::Message,
        summary: String,
        source: &str,
        line: usize,
        names: &mut Names,
    ) -> Node {
        Node {
            id: m.id.clone(),
            parent: m.parent.clone(),
            thread: m.thread.as_deref().map(|t| names.get(t)),
            sender: names.get(m.sender.as_deref().unwrap_or_default()),
            receiver: names.get(m.recipient.as_deref().unwrap_or_default()),
            intent: m.intent.as_ref().map(|i| names.get(i.as_str())),
            summary,
            source: names.get(source),
            line,
        }
    }
}

/// The conversations found among some messages. The trees are kept flat
/// (each node's replies by index), so that no walk over them recurses on
/// the depth of a conversation.
#[derive(Debug, Default)]
pub struct Forest {
    /// Top-level messages: no parent, or (orphans) a parent not among the inputs.
    pub roots: Vec<usize>,
    /// The replies of each node, oldest first.
    pub children: Vec<Vec<usize>>,
    /// Nodes whose parent id is not among the inputs.
    pub orphans: Vec<usize>,
    /// Groups of nodes whose parent links form a loop.
    pub cycles: Vec<Vec<usize>>,
    /// Ids carried by more than one message, with those messages.
    pub duplicates: Vec<(String, Vec<usize>)>,
    parent_of: Vec<Option<usize>>,
}

/// One step of a depth-first walk of a tree ([`Forest::walk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A node, at its depth below the tree's root (the root is 0), and
    /// whether it is the last reply of its parent.
    Enter {
        node: usize,
        depth: usize,
        last: bool,
    },
    /// The replies of a node have all been walked.
    Leave { node: usize },
}

impl Forest {
    /// The node a reply answers, when that node is among the inputs.
    pub fn parent(&self, node: usize) -> Option<usize> {
        self.parent_of.get(node).copied().flatten()
    }

    /// The nodes of the tree under `root` in depth-first order, replies
    /// oldest first, without recursion: any depth takes only heap memory.
    pub fn walk(&self, root: usize) -> impl Iterator<Item = Step> + '_ {
        let mut stack = vec![(root, 0usize, true, false)];
        std::iter::from_fn(move || {
            let (node, depth, last, entered) = stack.pop()?;
            if entered {
                return Some(Step::Leave { node });
            }
            stack.push((node, depth, last, true));
            let replies = &self.children[node];
            for (i, &c) in replies.iter().enumerate().rev() {
                stack.push((c, depth + 1, i + 1 == replies.len(), false));
            }
            Some(Step::Enter { node, depth, last })
        })
    }
}

/// Links nodes into trees. Each message has at most one parent, so a node
/// that no root reaches lies on (or hangs below) a cycle. Linear in the
/// number of messages (and a sort of each node's replies).
pub fn build(nodes: &[Node]) -> Forest {
    let mut forest = Forest::default();
    let mut by_id: HashMap<Cow<'_, str>, usize> = HashMap::new();
    let mut seen: HashMap<Cow<'_, str>, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(id) = n.id.as_deref() {
            by_id.entry(crate::ids::comparable(id)).or_insert(i);
            seen.entry(crate::ids::comparable(id)).or_default().push(i);
        }
    }
    let mut dups: Vec<(String, Vec<usize>)> = seen
        .into_iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    dups.sort_by_key(|(_, v)| v[0]);
    forest.duplicates = dups;

    let parent_of: Vec<Option<usize>> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            n.parent
                .as_deref()
                .and_then(|p| by_id.get(&crate::ids::comparable(p)).copied())
                .filter(|&p| p != i)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        match parent_of[i] {
            Some(p) => children[p].push(i),
            None => {
                if n.parent.is_some() {
                    forest.orphans.push(i);
                }
                forest.roots.push(i);
            }
        }
    }
    let created: Vec<u64> = nodes
        .iter()
        .map(|n| {
            n.id.as_deref()
                .and_then(crate::ids::timestamp_ms)
                .unwrap_or(u64::MAX)
        })
        .collect();
    for list in &mut children {
        list.sort_by_key(|&i| (created[i], i));
    }
    forest.children = children;
    let mut reached = vec![false; nodes.len()];
    for &root in &forest.roots {
        for step in forest.walk(root) {
            if let Step::Enter { node, .. } = step {
                reached[node] = true;
            }
        }
    }
    forest.cycles = find_cycles(&parent_of, &reached);
    forest.parent_of = parent_of;
    forest
}

/// The loops among the nodes no root reaches, each node visited once: a
/// walk up the parent links stops at a node already placed, and a node met
/// again on the walk's own path closes a loop.
fn find_cycles(parent_of: &[Option<usize>], reached: &[bool]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    const PLACED: usize = usize::MAX - 1;
    // UNSEEN, PLACED, or the node's position on the current walk.
    let mut state = vec![UNSEEN; parent_of.len()];
    let mut cycles = Vec::new();
    let mut path = Vec::new();
    for start in 0..parent_of.len() {
        if reached[start] || state[start] != UNSEEN {
            continue;
        }
        path.clear();
        let mut at = Some(start);
        while let Some(node) = at {
            match state[node] {
                UNSEEN => {
                    state[node] = path.len();
                    path.push(node);
                    at = parent_of[node];
                }
                PLACED => break,
                pos => {
                    let mut cycle = path[pos..].to_vec();
                    cycle.sort_unstable();
                    cycles.push(cycle);
                    break;
                }
            }
        }
        for &node in &path {
            state[node] = PLACED;
        }
    }
    cycles
}

/// For each orphan of `nodes`: the message its parent id is a near miss
/// of ([`near::NearIds`]), if any.
pub fn parent_guesses(nodes: &[Node], orphans: &[usize]) -> HashMap<usize, usize> {
    if orphans.is_empty() {
        return HashMap::new();
    }
    let ids = near::NearIds::new(nodes.iter().map(|n| n.id.as_deref()));
    orphans
        .iter()
        .filter_map(|&o| {
            let parent = nodes[o].parent.as_deref()?;
            // Any id but the orphan's own: a message is not its own parent.
            ids.guess(parent, Some(o)).map(|guess| (o, guess))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, parent: Option<&str>) -> Node {
        Node {
            id: Some(id.into()),
            parent: parent.map(Into::into),
            thread: None,
            sender: "A".into(),
            receiver: "B".into(),
            intent: None,
            summary: String::new(),
            source: "t".into(),
            line: 1,
        }
    }

    #[test]
    fn links_replies_and_finds_orphans() {
        let f = build(&[
            node("a", None),
            node("b", Some("a")),
            node("c", Some("a")),
            node("d", Some("zz")),
        ]);
        assert_eq!(f.roots.len(), 2);
        assert_eq!(f.children[f.roots[0]].len(), 2);
        assert_eq!(f.orphans, vec![3]);
        assert!(f.cycles.is_empty());
    }

    #[test]
    fn finds_cycles_and_duplicates() {
        let f = build(&[
            node("a", Some("b")),
            node("b", Some("a")),
            node("c", Some("a")),
            node("c", None),
        ]);
        assert_eq!(f.cycles, vec![vec![0, 1]]);
        assert_eq!(f.duplicates, vec![("c".to_string(), vec![2, 3])]);
    }

    #[test]
    fn a_cycle_below_a_long_chain_is_found_once() {
        // x0 → x1 → … → a, and a ⇄ b: every x hangs below the loop.
        let mut nodes = vec![node("a", Some("b")), node("b", Some("a"))];
        let n = 10_000;
        for i in 0..n {
            let parent = if i + 1 == n {
                "a".to_string()
            } else {
                format!("x{}", i + 1)
            };
            nodes.push(node(&format!("x{i}"), Some(&parent)));
        }
        let f = build(&nodes);
        assert_eq!(f.cycles, vec![vec![0, 1]]);
        assert!(f.roots.is_empty());
    }

    #[test]
    fn a_deep_chain_is_walked_without_recursion() {
        let n = 200_000;
        let nodes: Vec<Node> = (0..n)
            .map(|i| {
                let parent = (i > 0).then(|| format!("m{}", i - 1));
                node(&format!("m{i}"), parent.as_deref())
            })
            .collect();
        let f = build(&nodes);
        assert_eq!(f.roots, vec![0]);
        let deepest = f
            .walk(0)
            .filter_map(|s| match s {
                Step::Enter { depth, .. } => Some(depth),
                Step::Leave { .. } => None,
            })
            .max();
        assert_eq!(deepest, Some(n - 1));
        assert!(f.cycles.is_empty());
    }

    /// A parent id retyped in lower case (a ULID) or upper case (a UUID)
    /// still links to its message.
    #[test]
    fn ids_link_whatever_their_case() {
        let nodes = vec![
            node("01J9J3DBC4N7P2Q3R5S7T9W1V2", None),
            node(
                "01J9J3DBC4N7P2Q3R5S7T9W1V3",
                Some("01j9j3dbc4n7p2q3r5s7t9w1v2"),
            ),
            node("018f4a70-0000-7000-8000-00000000b001", None),
            node("x", Some("018F4A70-0000-7000-8000-00000000B001")),
            node("y", Some("X")),
        ];
        let forest = build(&nodes);
        assert_eq!(forest.parent(1), Some(0));
        assert_eq!(forest.parent(3), Some(2));
        // Other ids are compared as written.
        assert_eq!(forest.parent(4), None);
    }
}
