//! The verdict on one message, or on a whole input that holds none.

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::protocols::Found;

/// One verdict of `validate --format json`: on one message, or on a whole
/// input when it holds no message or cannot be read (`index` null).
/// Its schema is `schemas/aiproto/validate-report.schema.json`.
#[derive(Debug, Serialize)]
pub struct ValidateRecord<'a> {
    pub source: &'a str,
    pub index: Option<usize>,
    pub line: Option<usize>,
    pub end_line: Option<usize>,
    pub protocol: Option<&'static str>,
    pub version: Option<&'a str>,
    pub id: Option<&'a str>,
    pub valid: bool,
    pub errors: Vec<&'a Diagnostic>,
    pub warnings: Vec<&'a Diagnostic>,
    /// Findings left out by `--max-findings`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted: Option<usize>,
}

impl<'a> ValidateRecord<'a> {
    /// The verdict on a message, with the findings shown (errors first:
    /// they decide it) and how many were left out.
    pub fn message(
        source: &'a str,
        found: &'a Found,
        errors: Vec<&'a Diagnostic>,
        warnings: Vec<&'a Diagnostic>,
        omitted: Option<usize>,
    ) -> Self {
        ValidateRecord {
            source,
            index: Some(found.index),
            line: Some(found.line),
            end_line: Some(found.end_line),
            protocol: Some(found.protocol.name()),
            version: (!found.version.is_empty()).then_some(found.version.as_str()),
            id: found.id(),
            valid: errors.is_empty(),
            errors,
            warnings,
            omitted,
        }
    }

    /// The verdict on a whole input: the one error that makes it invalid.
    pub fn input(source: &'a str, error: &'a Diagnostic) -> Self {
        ValidateRecord {
            source,
            index: None,
            line: None,
            end_line: None,
            protocol: None,
            version: None,
            id: None,
            valid: false,
            errors: vec![error],
            warnings: Vec::new(),
            omitted: None,
        }
    }
}
