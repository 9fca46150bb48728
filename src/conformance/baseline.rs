//! Expected failures: a file of the vector ids an implementation is known
//! to fail, so that its CI fails only on a change — a new failure, or a
//! listed one that now passes (the file is then out of date). Written by
//! a run (`--write-expected-failures`), read by the next
//! (`--expected-failures`), as the MCP conformance suite's baselines are.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::grade::Outcome;
use super::vectors::{self, KIT_VERSION, Level};

/// The ids a baseline lists.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    pub expected: BTreeSet<String>,
}

/// How a run compares with its baseline.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Comparison {
    /// Listed, and still failing.
    pub still_failing: usize,
    /// Mandatory failures the baseline does not list.
    pub new: Vec<String>,
    /// Listed, run, and passing now: the baseline is out of date.
    pub fixed: Vec<String>,
    /// Listed but not among this run's vectors (another selection).
    pub not_run: usize,
}

impl Comparison {
    /// Nothing changed: the run passes.
    pub fn unchanged(&self) -> bool {
        self.new.is_empty() && self.fixed.is_empty()
    }
}

impl Baseline {
    /// Reads one id a line; `#` starts a comment; an id the kit does not
    /// have is an error naming its line (a typo would hide a failure).
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let known: BTreeSet<String> = vectors::all().into_iter().map(|v| v.id).collect();
        let mut expected = BTreeSet::new();
        for (n, line) in text.lines().enumerate() {
            let id = line.split('#').next().unwrap_or_default().trim();
            if id.is_empty() {
                continue;
            }
            if !known.contains(id) {
                return Err(format!(
                    "{}:{}: `{id}` is no vector of conformance kit {KIT_VERSION} \
                     (`aiproto conformance vectors` lists them)",
                    path.display(),
                    n + 1
                ));
            }
            expected.insert(id.to_string());
        }
        Ok(Baseline { expected })
    }

    pub fn compare(&self, outcomes: &[Outcome]) -> Comparison {
        let run: BTreeSet<&str> = outcomes.iter().map(|o| o.vector.id.as_str()).collect();
        let mut comparison = Comparison {
            still_failing: 0,
            new: Vec::new(),
            fixed: Vec::new(),
            not_run: self
                .expected
                .iter()
                .filter(|id| !run.contains(id.as_str()))
                .count(),
        };
        for o in outcomes {
            let listed = self.expected.contains(&o.vector.id);
            match (o.passed(), listed) {
                (false, true) => comparison.still_failing += 1,
                (false, false) if o.vector.level == Level::Mandatory => {
                    comparison.new.push(o.vector.id.clone());
                }
                (true, true) => comparison.fixed.push(o.vector.id.clone()),
                _ => {}
            }
        }
        comparison
    }
}

/// The baseline of a run: every failing vector's id, with its level and
/// cause as a comment.
pub fn written(outcomes: &[Outcome]) -> String {
    let mut text = format!(
        "# Expected failures against aiproto conformance kit {KIT_VERSION}: one vector id a line.\n\
         # Read with `--expected-failures FILE`: the run then fails only on a new\n\
         # mandatory failure, or on a vector listed here that passes now.\n"
    );
    for o in outcomes {
        if let Some((failure, _)) = &o.failure {
            text.push_str(&format!(
                "{}  # {}, {}\n",
                o.vector.id,
                o.vector.level.name(),
                failure.code()
            ));
        }
    }
    text
}
