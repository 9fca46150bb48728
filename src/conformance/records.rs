//! What a graded run says, for programs: a JSON record per vector, a
//! summary with the grades, and each failure as a finding for the CI
//! reports (an error for a mandatory vector, a warning otherwise).

use serde::Serialize;

use crate::diag::{Diagnostic, Pos};

use super::baseline::Comparison;
use super::grade::{self, Observed, Outcome, ProtocolGrade};
use super::vectors::{Expect, KIT_VERSION, Level};

/// One vector, graded (`record: "vector"`).
#[derive(Debug, Serialize)]
pub struct VectorRecord<'a> {
    record: &'static str,
    id: &'a str,
    protocol: &'a str,
    version: &'a str,
    level: Level,
    section: &'a str,
    expect: Expect,
    /// The vector's file in a kit written by `conformance vectors --out`.
    file: String,
    about: &'a str,
    observed: &'a Observed,
    passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'a str>,
}

/// The run's grades (`record: "summary"`, last).
#[derive(Debug, Serialize)]
pub struct SummaryRecord<'a> {
    record: &'static str,
    kit: &'static str,
    vectors: usize,
    passed: usize,
    mandatory_met: bool,
    protocols: Vec<ProtocolSummary>,
    /// Against `--expected-failures`: what changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a Comparison>,
}

#[derive(Debug, Serialize)]
struct ProtocolSummary {
    protocol: &'static str,
    compliance: &'static str,
    #[serde(flatten)]
    grade: ProtocolGrade,
}

pub fn vector(o: &Outcome) -> VectorRecord<'_> {
    let v = &o.vector;
    VectorRecord {
        record: "vector",
        id: &v.id,
        protocol: v.protocol(),
        version: &v.version,
        level: v.level,
        section: &v.section,
        expect: v.expect,
        file: v.kit_path().to_string_lossy().into_owned(),
        about: &v.about,
        observed: &o.observed,
        passed: o.passed(),
        code: o.failure.as_ref().map(|(f, _)| f.code()),
        why: o.failure.as_ref().map(|(_, why)| why.as_str()),
    }
}

pub fn summary<'a>(outcomes: &[Outcome], baseline: Option<&'a Comparison>) -> SummaryRecord<'a> {
    SummaryRecord {
        baseline,
        record: "summary",
        kit: KIT_VERSION,
        vectors: outcomes.len(),
        passed: outcomes.iter().filter(|o| o.passed()).count(),
        mandatory_met: grade::mandatory_met(outcomes),
        protocols: grade::tally(outcomes)
            .into_iter()
            .map(|(protocol, grade)| ProtocolSummary {
                protocol,
                compliance: grade.compliance(),
                grade,
            })
            .collect(),
    }
}

/// A failed vector as a finding at the top of its file: an error when the
/// vector is mandatory (it fails the run), a warning otherwise.
pub fn finding(o: &Outcome) -> Option<Diagnostic> {
    let (failure, why) = o.failure.as_ref()?;
    let v = &o.vector;
    let text = format!("{} ({}): {why}", v.section, v.level.name());
    let d = if v.level == Level::Mandatory {
        Diagnostic::error(failure.code(), text)
    } else {
        Diagnostic::warning(failure.code(), text)
    };
    Some(d.at(Pos::new(1, 1), 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::grade::grade;
    use crate::conformance::vectors::all;
    use crate::diag::Severity;

    #[test]
    fn a_failure_is_an_error_only_on_a_mandatory_vector_and_a_pass_is_no_finding() {
        let mut v = all()
            .into_iter()
            .find(|v| v.expect == Expect::Reject)
            .unwrap();
        let accepted = || Observed::accepted(vec![], vec![]);
        v.level = Level::Mandatory;
        let d = finding(&grade(v.clone(), accepted(), false)).unwrap();
        assert_eq!(
            (d.code, d.severity, d.line),
            ("CONF-ACCEPTED", Severity::Error, 1)
        );
        v.level = Level::Decision;
        assert_eq!(
            finding(&grade(v.clone(), accepted(), false))
                .unwrap()
                .severity,
            Severity::Warning
        );
        assert!(finding(&grade(v, Observed::refused(vec![], vec![]), false)).is_none());
    }

    #[test]
    fn the_summary_counts_every_vector_once_by_protocol() {
        let outcomes: Vec<Outcome> = all()
            .into_iter()
            .map(|v| grade(v, Observed::accepted(vec![], vec![]), false))
            .collect();
        let s = serde_json::to_value(summary(&outcomes, None)).unwrap();
        assert_eq!(s["vectors"], outcomes.len());
        let counted: u64 = s["protocols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                ["mandatory", "recommended", "decision"]
                    .iter()
                    .map(|l| p[l]["total"].as_u64().unwrap())
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(counted as usize, outcomes.len());
        assert_eq!(s["mandatory_met"], false);
    }
}
