//! Findings about a message: a stable code, a severity, a message and a place in the source.

pub mod codes;
pub mod policy;

use serde::Serialize;

/// How bad a finding is. Warnings become errors under `--strict`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One finding. `line` and `column` are 1-based and point into the original
/// source text (before quote prefixes or code fences were stripped); `length`
/// is how many characters the caret should underline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    #[serde(skip)]
    pub severity: Severity,
    pub message: String,
    pub line: usize,
    pub column: usize,
    #[serde(skip)]
    pub length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// For JSON protocols: the JSON Pointer of the value the finding is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            line: 0,
            column: 0,
            length: 0,
            hint: None,
            pointer: None,
        }
    }

    /// Places the finding at a position, underlining `length` characters.
    pub fn at(mut self, pos: Pos, length: usize) -> Self {
        self.line = pos.line;
        self.column = pos.column;
        self.length = length.max(1);
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Whether the finding reports a repair of damaged input (a byte-order
    /// mark, an invisible character, Markdown around an envelope…): what was
    /// read is not byte for byte what was written.
    pub fn is_repair(&self) -> bool {
        self.code == "INPUT-BOM" || self.code.contains("-REPAIR-")
    }
}

/// A 1-based line and column (in characters) in a source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    pub fn new(line: usize, column: usize) -> Self {
        Pos { line, column }
    }

    /// The position `chars` characters to the right on the same line.
    pub fn right(self, chars: usize) -> Self {
        Pos::new(self.line, self.column + chars)
    }
}

/// Splits findings into (errors, warnings), applying `--strict`.
pub fn partition(diags: &[Diagnostic], strict: bool) -> (Vec<&Diagnostic>, Vec<&Diagnostic>) {
    diags
        .iter()
        .partition(|d| d.is_error() || (strict && d.severity == Severity::Warning))
}
