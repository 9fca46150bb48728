//! Conversation trees: messages linked by their `parent` ids, with orphans,
//! cycles and duplicate ids found.

use std::collections::HashMap;

use serde::Serialize;

/// One message as a node of a conversation.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub id: Option<String>,
    pub parent: Option<String>,
    pub thread: Option<String>,
    pub sender: String,
    pub receiver: String,
    pub intent: Option<String>,
    /// The first non-empty line of the body, for display.
    pub summary: String,
    pub source: String,
    pub line: usize,
}

/// A node and its replies, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct Tree {
    pub node: usize,
    pub children: Vec<Tree>,
}

/// The conversations found among some messages.
#[derive(Debug, Default)]
pub struct Forest {
    /// Top-level messages: no parent, or (orphans) a parent not among the inputs.
    pub roots: Vec<Tree>,
    /// Nodes whose parent id is not among the inputs.
    pub orphans: Vec<usize>,
    /// Groups of nodes whose parent links form a loop.
    pub cycles: Vec<Vec<usize>>,
    /// Ids carried by more than one message, with those messages.
    pub duplicates: Vec<(String, Vec<usize>)>,
}

/// Links nodes into trees. Each message has at most one parent, so a node
/// that no root reaches lies on (or hangs below) a cycle.
pub fn build(nodes: &[Node]) -> Forest {
    let mut forest = Forest::default();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(id) = n.id.as_deref() {
            by_id.entry(id).or_insert(i);
            seen.entry(id).or_default().push(i);
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
                .and_then(|p| by_id.get(p).copied())
                .filter(|&p| p != i)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut root_ids = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        match parent_of[i] {
            Some(p) => children[p].push(i),
            None => {
                if n.parent.is_some() {
                    forest.orphans.push(i);
                }
                root_ids.push(i);
            }
        }
    }
    let key = |i: &usize| {
        (
            nodes[*i]
                .id
                .as_deref()
                .and_then(crate::ids::timestamp_ms)
                .unwrap_or(u64::MAX),
            *i,
        )
    };
    for list in &mut children {
        list.sort_by_key(key);
    }
    let mut reached = vec![false; nodes.len()];
    forest.roots = root_ids
        .iter()
        .map(|&r| grow(r, &children, &mut reached))
        .collect();
    forest.cycles = find_cycles(&parent_of, &reached);
    forest
}

fn grow(node: usize, children: &[Vec<usize>], reached: &mut [bool]) -> Tree {
    reached[node] = true;
    Tree {
        node,
        children: children[node]
            .iter()
            .map(|&c| grow(c, children, reached))
            .collect(),
    }
}

fn find_cycles(parent_of: &[Option<usize>], reached: &[bool]) -> Vec<Vec<usize>> {
    let mut on_cycle = vec![false; parent_of.len()];
    let mut cycles = Vec::new();
    for start in 0..parent_of.len() {
        if reached[start] || on_cycle[start] {
            continue;
        }
        // Walk up until a node repeats: that node is on the loop.
        let mut visited = vec![start];
        let mut at = start;
        while let Some(p) = parent_of[at] {
            if let Some(pos) = visited.iter().position(|&v| v == p) {
                let cycle: Vec<usize> = visited[pos..].to_vec();
                if !cycle.iter().any(|&c| on_cycle[c]) {
                    cycle.iter().for_each(|&c| on_cycle[c] = true);
                    let mut sorted = cycle;
                    sorted.sort_unstable();
                    cycles.push(sorted);
                }
                break;
            }
            visited.push(p);
            at = p;
        }
    }
    cycles
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
        assert_eq!(f.roots[0].children.len(), 2);
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
}
