//! Exit statuses, the command-line contract of DESIGN.md, and the error type that carries one.

/// What the process reports to its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitStatus {
    /// Everything was valid / done.
    Ok = 0,
    /// A message is invalid, a signature fails, or a strict conversion lost data.
    Invalid = 1,
    /// Usage error or unreadable input.
    Usage = 2,
    /// Transport or environment failure.
    Transport = 3,
    /// Timed out waiting for a reply.
    Timeout = 4,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// An error that ends a command: printed once as `aiproto: error: …`, with an optional hint.
#[derive(Debug)]
pub struct CliError {
    pub status: ExitStatus,
    pub error: anyhow::Error,
    pub hint: Option<String>,
}

impl CliError {
    pub fn new(status: ExitStatus, error: impl Into<anyhow::Error>) -> Self {
        CliError {
            status,
            error: error.into(),
            hint: None,
        }
    }

    pub fn usage(message: impl std::fmt::Display) -> Self {
        Self::new(ExitStatus::Usage, anyhow::anyhow!("{message}"))
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.error)
    }
}

/// So that a command's error can travel through a transport's callback
/// (wrapped in `anyhow`) and come out with its exit status.
impl std::error::Error for CliError {}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::new(ExitStatus::Usage, e)
    }
}

impl From<crate::input::InputError> for CliError {
    fn from(e: crate::input::InputError) -> Self {
        CliError::new(ExitStatus::Usage, e)
    }
}

/// What every subcommand returns.
pub type CmdResult = Result<ExitStatus, CliError>;
