//! Grading: what an implementation did with each vector, whether that is
//! what the vector expects, and the tallies per protocol and level.

use std::collections::BTreeMap;

use serde::Serialize;

use super::vectors::{Expect, Level, PROTOCOLS, Vector};

/// What an implementation did with one vector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Observed {
    /// It gave a verdict.
    Verdict {
        accepted: bool,
        /// The error codes it reported, if it reports codes.
        errors: Vec<String>,
        /// The warning codes it reported.
        warnings: Vec<String>,
        /// Something wrong with how it answered, even if the verdict is right
        /// (an HTTP refusal without an ERROR envelope, say).
        #[serde(skip_serializing_if = "Option::is_none")]
        problem: Option<String>,
        /// The reason it gave, if any (its stderr's last line, an ERROR's Reason).
        #[serde(skip_serializing_if = "Option::is_none")]
        said: Option<String>,
    },
    /// It gave none: crashed, timed out, exited with a status the adapter
    /// contract does not know, or printed no verdict.
    Broken { why: String },
}

impl Observed {
    pub fn accepted(errors: Vec<String>, warnings: Vec<String>) -> Self {
        Observed::Verdict {
            accepted: true,
            errors,
            warnings,
            problem: None,
            said: None,
        }
    }

    pub fn refused(errors: Vec<String>, warnings: Vec<String>) -> Self {
        Observed::Verdict {
            accepted: false,
            errors,
            warnings,
            problem: None,
            said: None,
        }
    }

    pub fn broken(why: impl Into<String>) -> Self {
        Observed::Broken { why: why.into() }
    }

    /// The same verdict, with the reason the implementation gave.
    pub fn saying(mut self, reason: Option<String>) -> Self {
        if let Observed::Verdict { said, .. } = &mut self {
            *said = reason.filter(|r| !r.trim().is_empty());
        }
        self
    }
}

/// How a vector failed, for the reports (each is a finding code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Failure {
    /// Accepted what the spec refuses.
    Accepted,
    /// Refused what the spec accepts.
    Refused,
    /// The right verdict, without the codes the vector names (`--codes`).
    Codes,
    /// The right verdict, answered the wrong way.
    Answer,
    /// No verdict at all.
    Broken,
}

impl Failure {
    pub fn code(self) -> &'static str {
        match self {
            Failure::Accepted => "CONF-ACCEPTED",
            Failure::Refused => "CONF-REFUSED",
            Failure::Codes => "CONF-CODES",
            Failure::Answer => "CONF-ANSWER",
            Failure::Broken => "CONF-BROKEN",
        }
    }

    /// What the code means, in a few words.
    pub fn meaning(self) -> &'static str {
        match self {
            Failure::Accepted => "accepted what the spec refuses",
            Failure::Refused => "refused what the spec accepts",
            Failure::Codes => "right verdict, without the codes the vector names",
            Failure::Answer => "right verdict, answered the wrong way",
            Failure::Broken => "no verdict (crashed, timed out, unreadable answer)",
        }
    }
}

/// One vector, graded.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub vector: Vector,
    pub observed: Observed,
    /// `None`: passed.
    pub failure: Option<(Failure, String)>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// Grades `observed` against `vector`; with `codes`, the codes the vector
/// names must be among those reported.
pub fn grade(vector: Vector, observed: Observed, codes: bool) -> Outcome {
    let failure = judge(&vector, &observed, codes);
    Outcome {
        vector,
        observed,
        failure,
    }
}

fn judge(vector: &Vector, observed: &Observed, codes: bool) -> Option<(Failure, String)> {
    let (accepted, errors, warnings, problem, said) = match observed {
        Observed::Broken { why } => return Some((Failure::Broken, why.clone())),
        Observed::Verdict {
            accepted,
            errors,
            warnings,
            problem,
            said,
        } => (*accepted, errors, warnings, problem, said),
    };
    match (vector.expect, accepted) {
        (Expect::Reject, true) => {
            return Some((
                Failure::Accepted,
                format!(
                    "accepted; a conforming reader refuses it ({})",
                    vector.about
                ),
            ));
        }
        (Expect::Accept, false) => {
            let codes = if errors.is_empty() {
                String::new()
            } else {
                format!(" with {}", errors.join(", "))
            };
            let reason = said
                .as_ref()
                .map_or_else(String::new, |s| format!(" (\"{s}\")"));
            return Some((
                Failure::Refused,
                format!(
                    "refused{codes}{reason}; a conforming reader accepts it ({})",
                    vector.about
                ),
            ));
        }
        _ => {}
    }
    if let Some(problem) = problem {
        return Some((Failure::Answer, problem.clone()));
    }
    if codes {
        let missing: Vec<&str> = vector
            .codes
            .iter()
            .filter(|c| !errors.contains(c))
            .chain(vector.warnings.iter().filter(|c| !warnings.contains(c)))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Some((
                Failure::Codes,
                format!(
                    "{} as expected, but without {}",
                    if accepted { "accepted" } else { "refused" },
                    missing.join(", ")
                ),
            ));
        }
    }
    None
}

/// Passed and total vectors of one protocol, per level.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Count {
    pub passed: usize,
    pub total: usize,
}

/// The grade of one protocol.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProtocolGrade {
    pub mandatory: Count,
    pub recommended: Count,
    pub decision: Count,
}

impl ProtocolGrade {
    fn count_mut(&mut self, level: Level) -> &mut Count {
        match level {
            Level::Mandatory => &mut self.mandatory,
            Level::Recommended => &mut self.recommended,
            Level::Decision => &mut self.decision,
        }
    }

    pub fn count(&self, level: Level) -> Count {
        match level {
            Level::Mandatory => self.mandatory,
            Level::Recommended => self.recommended,
            Level::Decision => self.decision,
        }
    }

    /// The compliance level reached: `full` (every mandatory and
    /// recommended vector), `mandatory` (every mandatory one) or `none`.
    pub fn compliance(&self) -> &'static str {
        let all = |c: Count| c.passed == c.total;
        if !all(self.mandatory) {
            "none"
        } else if all(self.recommended) {
            "full"
        } else {
            "mandatory"
        }
    }
}

/// The grades of a run, by protocol in [`PROTOCOLS`] order (those with vectors only).
pub fn tally(outcomes: &[Outcome]) -> Vec<(&'static str, ProtocolGrade)> {
    let mut grades = BTreeMap::new();
    for o in outcomes {
        let Some(protocol) = PROTOCOLS.iter().find(|p| **p == o.vector.protocol()) else {
            continue;
        };
        let grade: &mut ProtocolGrade = grades.entry(*protocol).or_default();
        let count = grade.count_mut(o.vector.level);
        count.total += 1;
        count.passed += usize::from(o.passed());
    }
    PROTOCOLS
        .iter()
        .filter_map(|p| grades.remove(p).map(|g| (*p, g)))
        .collect()
}

/// Whether every mandatory vector of the run passed (the exit status's verdict).
pub fn mandatory_met(outcomes: &[Outcome]) -> bool {
    outcomes
        .iter()
        .all(|o| o.passed() || o.vector.level != Level::Mandatory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::vectors::{Kind, all};

    fn vector(expect: Expect) -> Vector {
        let mut v = all().into_iter().find(|v| v.kind == Kind::Message).unwrap();
        v.expect = expect;
        v.codes = vec!["HSP-SCHEMA-REQUIRED".into()];
        v
    }

    #[test]
    fn a_verdict_passes_only_when_it_is_the_expected_one() {
        let accept = || Observed::accepted(vec![], vec![]);
        let refuse = || Observed::refused(vec!["X".into()], vec![]);
        assert!(grade(vector(Expect::Accept), accept(), false).passed());
        assert!(grade(vector(Expect::Reject), refuse(), false).passed());
        let o = grade(vector(Expect::Reject), accept(), false);
        assert_eq!(o.failure.unwrap().0, Failure::Accepted);
        let o = grade(vector(Expect::Accept), refuse(), false);
        let (f, why) = o.failure.unwrap();
        assert_eq!(f, Failure::Refused);
        assert!(why.contains("refused with X"), "{why}");
        let o = grade(vector(Expect::Accept), Observed::broken("timed out"), false);
        assert_eq!(o.failure.unwrap(), (Failure::Broken, "timed out".into()));
    }

    #[test]
    fn codes_are_graded_only_when_asked_and_a_wrong_answer_fails_a_right_verdict() {
        let refuse = Observed::refused(vec!["OTHER".into()], vec![]);
        assert!(grade(vector(Expect::Reject), refuse.clone(), false).passed());
        let (f, why) = grade(vector(Expect::Reject), refuse, true).failure.unwrap();
        assert_eq!(f, Failure::Codes);
        assert!(why.contains("without HSP-SCHEMA-REQUIRED"), "{why}");
        let answered = Observed::Verdict {
            accepted: false,
            errors: vec![],
            warnings: vec![],
            problem: Some("no ERROR envelope".into()),
            said: None,
        };
        assert_eq!(
            grade(vector(Expect::Reject), answered, false)
                .failure
                .unwrap()
                .0,
            Failure::Answer
        );
    }

    #[test]
    fn compliance_needs_every_mandatory_vector_and_full_every_recommended_one() {
        let mut g = ProtocolGrade {
            mandatory: Count {
                passed: 3,
                total: 3,
            },
            recommended: Count {
                passed: 1,
                total: 2,
            },
            decision: Count {
                passed: 0,
                total: 5,
            },
        };
        assert_eq!(g.compliance(), "mandatory");
        g.recommended.passed = 2;
        assert_eq!(g.compliance(), "full");
        g.mandatory.passed = 2;
        assert_eq!(g.compliance(), "none");
    }
}
