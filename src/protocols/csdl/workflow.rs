//! Workflow checks: step ids, the step graph (`next`, `true_next`,
//! `false_next`, falling through to the following step, entering nested
//! `s` steps), unreachable steps, cycles that no `loop` step owns, and
//! `{{step.field}}` templates that must name `input` or a step that runs
//! before.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::checks::{missing, not_object, required_str, wrong_type};
use crate::protocols::json_doc::Finding;

/// Names a `next` may use to end the workflow.
pub const TERMINALS: &[&str] = &["complete", "end", "done"];

struct Step<'a> {
    map: &'a Map<String, Value>,
    pointer: String,
    id: Option<&'a str>,
    action: Option<&'a str>,
    /// The step that runs after this one when it names none itself.
    following: Option<usize>,
    /// The first of its nested steps.
    first_child: Option<usize>,
}

/// Checks the steps (`s`) of a workflow element at `at`.
pub fn check(map: &Map<String, Value>, at: &str, out: &mut Vec<Finding>) {
    let steps = match map.get("s") {
        None => {
            out.push(missing(at, "s", "the workflow's steps"));
            return;
        }
        Some(Value::Array(s)) if s.is_empty() => {
            out.push(Finding::error(
                format!("{at}/s"),
                "CSDL-EMPTY",
                "a workflow needs at least one step",
            ));
            return;
        }
        Some(Value::Array(s)) => s,
        Some(_) => {
            out.push(wrong_type(
                format!("{at}/s"),
                "s (steps)",
                "an array of steps",
            ));
            return;
        }
    };
    let mut flat = Vec::new();
    collect(steps, &format!("{at}/s"), &mut flat, out);
    if flat.is_empty() {
        return;
    }
    let ids = step_ids(&flat, out);
    let edges: Vec<Vec<usize>> = flat
        .iter()
        .map(|step| successors(step, &ids, out))
        .collect();
    unreachable(&flat, &edges, out);
    cycles(&flat, &edges, out);
    templates(&flat, &edges, &ids, out);
}

/// Flattens nested step lists, in document order.
fn collect<'a>(items: &'a [Value], at: &str, flat: &mut Vec<Step<'a>>, out: &mut Vec<Finding>) {
    let mut previous: Option<usize> = None;
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("{at}/{i}");
        let Value::Object(map) = item else {
            out.push(not_object(pointer, "a workflow step"));
            continue;
        };
        let index = flat.len();
        if let Some(p) = previous {
            flat[p].following = Some(index);
        }
        previous = Some(index);
        let id = required_str(map, &pointer, "id", out);
        let action = required_str(map, &pointer, "action", out);
        flat.push(Step {
            map,
            pointer: pointer.clone(),
            id,
            action,
            following: None,
            first_child: None,
        });
        match map.get("s") {
            Some(Value::Array(nested)) if !nested.is_empty() => {
                flat[index].first_child = Some(flat.len());
                collect(nested, &format!("{pointer}/s"), flat, out);
            }
            Some(Value::Array(_)) | None => {}
            Some(_) => out.push(wrong_type(
                format!("{pointer}/s"),
                "s (steps)",
                "an array of steps",
            )),
        }
        if action == Some("conditional") {
            for key in ["condition", "true_next", "false_next"] {
                if !map.contains_key(key) {
                    out.push(missing(
                        &pointer,
                        key,
                        "a conditional step branches on a condition",
                    ));
                }
            }
        }
        if let Some(agent) = map.get("agent")
            && !agent.is_string()
        {
            out.push(wrong_type(format!("{pointer}/agent"), "agent", "a string"));
        }
    }
}

/// Step id → index; duplicates are findings.
fn step_ids<'a>(flat: &[Step<'a>], out: &mut Vec<Finding>) -> HashMap<&'a str, usize> {
    let mut ids = HashMap::new();
    for (i, step) in flat.iter().enumerate() {
        let Some(id) = step.id else { continue };
        if let Some(&first) = ids.get(id) {
            let first: &Step = &flat[first];
            out.push(Finding::error(
                format!("{}/id", step.pointer),
                "CSDL-DUPLICATE-STEP",
                format!("step id `{id}` is used twice (first at {})", first.pointer),
            ));
        } else {
            ids.insert(id, i);
        }
    }
    ids
}

/// Where a step can go next.
fn successors(step: &Step, ids: &HashMap<&str, usize>, out: &mut Vec<Finding>) -> Vec<usize> {
    let mut next = Vec::new();
    let mut names_one = false;
    for key in ["next", "true_next", "false_next"] {
        let Some(target) = step.map.get(key) else {
            continue;
        };
        names_one = true;
        let at = format!("{}/{key}", step.pointer);
        match target.as_str() {
            Some(t) if TERMINALS.contains(&t) => {}
            Some(t) => match ids.get(t) {
                Some(&i) => next.push(i),
                None => out.push(Finding::error(
                    at,
                    "CSDL-UNKNOWN-STEP",
                    format!(
                        "`{key}` names `{t}`, which is no step of this workflow (nor a terminal: {})",
                        TERMINALS.join(", ")
                    ),
                )),
            },
            None => out.push(wrong_type(at, key, "a step id")),
        }
    }
    if !names_one && let Some(f) = step.following {
        next.push(f);
    }
    next.extend(step.first_child);
    next
}

fn unreachable(flat: &[Step], edges: &[Vec<usize>], out: &mut Vec<Finding>) {
    let seen = reach(0, edges);
    for (i, step) in flat.iter().enumerate() {
        if !seen.contains(&i) {
            out.push(Finding::warning(
                format!("{}/id", step.pointer),
                "CSDL-UNREACHABLE",
                format!(
                    "step `{}` is never reached from the first step",
                    step.id.unwrap_or("?")
                ),
            ));
        }
    }
}

/// Every step reachable from `start` (itself included).
fn reach(start: usize, edges: &[Vec<usize>]) -> HashSet<usize> {
    let mut seen = HashSet::from([start]);
    let mut todo = vec![start];
    while let Some(i) = todo.pop() {
        for &j in &edges[i] {
            if seen.insert(j) {
                todo.push(j);
            }
        }
    }
    seen
}

/// A cycle is allowed only through a `loop` step.
fn cycles(flat: &[Step], edges: &[Vec<usize>], out: &mut Vec<Finding>) {
    let reaches: Vec<HashSet<usize>> = (0..flat.len()).map(|i| reach(i, edges)).collect();
    let mut reported: HashSet<usize> = HashSet::new();
    for i in 0..flat.len() {
        if reported.contains(&i) {
            continue;
        }
        // The steps on a cycle with i: those i reaches that reach i back.
        let on_cycle: Vec<usize> = (0..flat.len())
            .filter(|&j| {
                reaches[i].contains(&j)
                    && reaches[j].contains(&i)
                    && (j != i || edges[i].contains(&i))
            })
            .collect();
        let cyclic = on_cycle.contains(&i) || on_cycle.iter().any(|&j| j != i);
        if !cyclic {
            continue;
        }
        reported.extend(on_cycle.iter().copied());
        reported.insert(i);
        let looped = on_cycle
            .iter()
            .chain(std::iter::once(&i))
            .any(|&j| flat[j].action == Some("loop"));
        if !looped {
            // i first and last: a → b → a.
            let mut members = vec![i];
            members.extend(on_cycle.iter().copied().filter(|&j| j != i));
            members.push(i);
            let names: Vec<&str> = members.iter().map(|&j| flat[j].id.unwrap_or("?")).collect();
            out.push(Finding::error(
                format!("{}/id", flat[i].pointer),
                "CSDL-CYCLE",
                format!(
                    "steps {} form a cycle that no `loop` step owns",
                    names.join(" → ")
                ),
            ));
        }
    }
}

/// `{{name.field}}` in a step's arguments or condition names `input` or a
/// step that runs before this one.
fn templates(
    flat: &[Step],
    edges: &[Vec<usize>],
    ids: &HashMap<&str, usize>,
    out: &mut Vec<Finding>,
) {
    for (i, step) in flat.iter().enumerate() {
        for key in ["a", "condition"] {
            let Some(value) = step.map.get(key) else {
                continue;
            };
            let mut strings = Vec::new();
            strings_in(value, &format!("{}/{key}", step.pointer), &mut strings);
            for (at, text) in strings {
                for root in template_roots(text) {
                    if root == "input" {
                        continue;
                    }
                    let message = match ids.get(root) {
                        None => format!(
                            "`{{{{{root}…}}}}` names no step of this workflow (nor `input`)"
                        ),
                        Some(&j) if j != i && reach(j, edges).contains(&i) => continue,
                        Some(_) => format!(
                            "`{{{{{root}…}}}}` uses step `{root}`, which does not run before step `{}`",
                            step.id.unwrap_or("?")
                        ),
                    };
                    out.push(Finding::error(at.clone(), "CSDL-TEMPLATE", message));
                }
            }
        }
    }
}

fn strings_in<'a>(value: &'a Value, at: &str, out: &mut Vec<(String, &'a str)>) {
    match value {
        Value::String(s) => out.push((at.to_string(), s)),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                strings_in(v, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                strings_in(v, &format!("{at}/{}", super::checks::escape(k)), out);
            }
        }
        _ => {}
    }
}

/// The first name of every `{{name.field}}` in a text.
fn template_roots(text: &str) -> Vec<&str> {
    let mut roots = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let inner = after[..end].trim();
        let root = inner.split(['.', '[']).next().unwrap_or("").trim();
        if !root.is_empty() {
            roots.push(root);
        }
        rest = &after[end + 2..];
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(wf: Value) -> Vec<&'static str> {
        let mut out = Vec::new();
        check(wf.as_object().expect("object"), "", &mut out);
        out.iter().map(|f| f.diagnostic.code).collect()
    }

    #[test]
    fn a_straight_workflow_is_clean() {
        let wf = json!({"s": [
            {"id": "gather", "action": "plan", "a": {"topic": "{{input.topic}}"}, "next": "search"},
            {"id": "search", "action": "run", "a": {"q": "{{gather.queries}}"}, "next": "complete"}
        ]});
        assert!(codes(wf).is_empty());
    }

    #[test]
    fn unknown_targets_duplicates_and_unreachable_steps() {
        let wf = json!({"s": [
            {"id": "a", "action": "f", "next": "nowhere"},
            {"id": "a", "action": "g", "next": "end"}
        ]});
        let c = codes(wf);
        assert!(c.contains(&"CSDL-UNKNOWN-STEP"), "{c:?}");
        assert!(c.contains(&"CSDL-DUPLICATE-STEP"), "{c:?}");
        assert!(c.contains(&"CSDL-UNREACHABLE"), "{c:?}");
    }

    #[test]
    fn cycles_need_a_loop_step() {
        let bad = json!({"s": [
            {"id": "a", "action": "f", "next": "b"},
            {"id": "b", "action": "g", "next": "a"}
        ]});
        assert_eq!(codes(bad), vec!["CSDL-CYCLE"]);
        let good = json!({"s": [
            {"id": "a", "action": "loop", "next": "b"},
            {"id": "b", "action": "g", "next": "a"}
        ]});
        assert!(codes(good).is_empty());
        let own = json!({"s": [{"id": "a", "action": "f", "next": "a"}]});
        assert_eq!(codes(own), vec!["CSDL-CYCLE"]);
    }

    #[test]
    fn templates_must_look_back() {
        let wf = json!({"s": [
            {"id": "a", "action": "f", "a": {"x": "{{b.out}}"}, "next": "b"},
            {"id": "b", "action": "g", "a": {"y": "{{ghost.out}} and {{a.out}}"}}
        ]});
        assert_eq!(codes(wf), vec!["CSDL-TEMPLATE", "CSDL-TEMPLATE"]);
    }

    #[test]
    fn conditionals_need_both_branches() {
        let wf = json!({"s": [{"id": "a", "action": "conditional", "condition": "x", "true_next": "end"}]});
        assert_eq!(codes(wf), vec!["CSDL-MISSING"]);
    }
}
