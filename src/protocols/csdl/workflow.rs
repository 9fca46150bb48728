//! Workflow checks: step ids, the step graph (`next`, `true_next`,
//! `false_next`, falling through to the following step, entering nested
//! `s` steps), unreachable steps, cycles that no `loop` step owns, and
//! `{{step.field}}` templates that must name `input` or a step that runs
//! before.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::fields::{missing, not_object, required_str, wrong_type};
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
    let components = components(&edges);
    cycles(&flat, &edges, &components, out);
    templates(&flat, &edges, &components, &ids, out);
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
    let mut visits = Visits::new(flat.len());
    visits.walk_from(0, edges);
    for (i, step) in flat.iter().enumerate() {
        if !visits.seen(i) {
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

/// Reachability walks over the step graph that share one visited array
/// (stamped per walk, so a new walk costs nothing to start).
struct Visits {
    stamp: Vec<u32>,
    /// The steps the current walk is looking for.
    wanted: Vec<u32>,
    current: u32,
    todo: Vec<usize>,
    /// Edges followed by all walks so far.
    work: usize,
}

impl Visits {
    fn new(steps: usize) -> Visits {
        Visits {
            stamp: vec![0; steps],
            wanted: vec![0; steps],
            current: 0,
            todo: Vec::new(),
            work: 0,
        }
    }

    /// Marks every step reachable from `start` (itself included).
    fn walk_from(&mut self, start: usize, edges: &[Vec<usize>]) {
        self.walk_until(start, edges, &[]);
    }

    /// Marks the steps reachable from `start`, nearest first, until every
    /// one of `targets` is marked (all of them when `targets` is empty):
    /// a template usually names a step a few steps back.
    fn walk_until(&mut self, start: usize, edges: &[Vec<usize>], targets: &[usize]) {
        self.current += 1;
        let mut wanted = targets.len();
        for &t in targets {
            self.wanted[t] = self.current;
        }
        self.stamp[start] = self.current;
        self.todo.clear();
        self.todo.push(start);
        let mut next = 0;
        while let Some(&i) = self.todo.get(next) {
            next += 1;
            for &j in &edges[i] {
                self.work += 1;
                if self.stamp[j] != self.current {
                    self.stamp[j] = self.current;
                    self.todo.push(j);
                    if self.wanted[j] == self.current {
                        wanted -= 1;
                        if wanted == 0 {
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Whether the last walk reached a step.
    fn seen(&self, i: usize) -> bool {
        self.stamp[i] == self.current
    }
}

/// The strongly connected components of the step graph (Tarjan's
/// algorithm, without recursion): linear in steps and edges. A component
/// comes after every component it reaches.
fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const NONE: usize = usize::MAX;
    let n = edges.len();
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut found) = (Vec::new(), Vec::new());
    let mut next = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, how many of its edges were followed)
        let mut calls = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut followed)) = calls.last_mut() {
            if *followed == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*followed) {
                *followed += 1;
                if index[w] == NONE {
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                found.push(component);
            }
        }
    }
    found
}

/// How many step names a finding lists before it says how many more.
const NAMES_LISTED: usize = 12;

/// A cycle is allowed only through a `loop` step.
fn cycles(flat: &[Step], edges: &[Vec<usize>], components: &[Vec<usize>], out: &mut Vec<Finding>) {
    let mut found: Vec<Vec<usize>> = components
        .iter()
        .filter(|c| c.len() > 1 || edges[c[0]].contains(&c[0]))
        .cloned()
        .collect();
    for c in &mut found {
        c.sort_unstable();
    }
    found.sort_unstable_by_key(|c| c[0]);
    for members in found {
        if members.iter().any(|&j| flat[j].action == Some("loop")) {
            continue;
        }
        // The first step first and last: a → b → a.
        let first = members[0];
        let mut names: Vec<&str> = members
            .iter()
            .take(NAMES_LISTED)
            .map(|&j| flat[j].id.unwrap_or("?"))
            .collect();
        let more = members.len().saturating_sub(NAMES_LISTED);
        if more > 0 {
            names.push("…");
        }
        names.push(flat[first].id.unwrap_or("?"));
        let count = if more > 0 {
            format!(" ({} steps)", members.len())
        } else {
            String::new()
        };
        out.push(Finding::error(
            format!("{}/id", flat[first].pointer),
            "CSDL-CYCLE",
            format!(
                "steps {}{count} form a cycle that no `loop` step owns",
                names.join(" → ")
            ),
        ));
    }
}

/// The edges all template checks of one workflow may follow together: past
/// it, the order of the remaining templates is not checked (and a finding
/// says so), so that no workflow costs more than a fixed amount to check.
const TEMPLATE_WORK: usize = 20_000_000;

/// `{{name.field}}` in a step's arguments or condition names `input` or a
/// step that runs before this one. Templates are checked by the step they
/// name: one walk per named step, however many templates name it; the
/// findings come in document order.
fn templates(
    flat: &[Step],
    edges: &[Vec<usize>],
    components: &[Vec<usize>],
    ids: &HashMap<&str, usize>,
    out: &mut Vec<Finding>,
) {
    let mut component_of = vec![0; flat.len()];
    for (c, members) in components.iter().enumerate() {
        for &m in members {
            component_of[m] = c;
        }
    }
    // Each template naming a step: (that step, the step it is in, where,
    // the name, its place in document order).
    let mut uses: Vec<(usize, usize, String, &str, usize)> = Vec::new();
    // (place in document order, finding)
    let mut found: Vec<(usize, Finding)> = Vec::new();
    let mut seq = 0;
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
                    seq += 1;
                    match ids.get(root) {
                        None => found.push((
                            seq,
                            Finding::error(
                                at.clone(),
                                "CSDL-TEMPLATE",
                                format!(
                                    "`{{{{{root}…}}}}` names no step of this workflow (nor `input`)"
                                ),
                            ),
                        )),
                        Some(&j) => uses.push((j, i, at.clone(), root, seq)),
                    }
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..uses.len()).collect();
    order.sort_by_key(|&k| uses[k].0);
    let mut visits = Visits::new(flat.len());
    let mut walked = None;
    let mut targets = Vec::new();
    for (at_order, &k) in order.iter().enumerate() {
        let (j, i, at, root, seq) = &uses[k];
        let (cj, ci) = (component_of[*j], component_of[*i]);
        // Within one component every step reaches every other; a component
        // reaches only components that come before it.
        let known = if j == i || cj < ci {
            Some(false)
        } else if cj == ci {
            Some(true)
        } else {
            None
        };
        let runs_before = match known {
            Some(answer) => answer,
            None if visits.work > TEMPLATE_WORK => {
                out.push(Finding::warning(
                    at.clone(),
                    "CSDL-TEMPLATE-UNCHECKED",
                    "the order of this template was not checked: the workflow is too large to check them all",
                ));
                continue;
            }
            None => {
                if walked != Some(*j) {
                    // Every step the templates naming j are in, found in one walk.
                    targets.clear();
                    targets.extend(
                        order[at_order..]
                            .iter()
                            .take_while(|&&m| uses[m].0 == *j)
                            .map(|&m| uses[m].1)
                            .filter(|&t| component_of[t] < cj),
                    );
                    targets.sort_unstable();
                    targets.dedup();
                    visits.walk_until(*j, edges, &targets);
                    walked = Some(*j);
                }
                visits.seen(*i)
            }
        };
        if !runs_before {
            found.push((
                *seq,
                Finding::error(
                    at.clone(),
                    "CSDL-TEMPLATE",
                    format!(
                        "`{{{{{root}…}}}}` uses step `{root}`, which does not run before step `{}`",
                        flat[*i].id.unwrap_or("?")
                    ),
                ),
            ));
        }
    }
    found.sort_by_key(|(k, _)| *k);
    out.extend(found.into_iter().map(|(_, f)| f));
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
                strings_in(v, &format!("{at}/{}", super::fields::escape(k)), out);
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
    fn a_ring_of_many_steps_is_one_cycle_named_briefly() {
        let n = 20_000;
        let steps: Vec<Value> = (0..n)
            .map(|i| {
                json!({"id": format!("s{i}"), "action": "f", "next": format!("s{}", (i + 1) % n),
                "a": {"x": format!("{{{{s{}.out}}}}", (i + n - 1) % n)}})
            })
            .collect();
        let c = codes(json!({ "s": steps }));
        assert_eq!(c, vec!["CSDL-CYCLE"]);
        let mut out = Vec::new();
        check(json!({"s": [{"id": "a", "action": "f", "next": "b"}, {"id": "b", "action": "f", "next": "a"}]})
            .as_object().unwrap(), "", &mut out);
        assert_eq!(
            out[0].diagnostic.message,
            "steps a → b → a form a cycle that no `loop` step owns"
        );
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
