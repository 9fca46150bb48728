//! Serving: arrivals bound to a handler (`serve --exec`), an inbox folder
//! (`serve --inbox`) or both, within quotas and deadlines; and the agent
//! directory built from what agents advertise. `aiproto serve` and
//! `aiproto directory` are these, with their arguments and printing.

pub use crate::delivery::binding::Binding;
pub use crate::delivery::handler::{Handler, TIMEOUT_SECS};
pub use crate::delivery::stored::{MAX_INBOX_BYTES, MAX_INBOX_FILES, Quota};
pub use crate::protocols::hsp::directory::{ADVERTISEMENTS, Directory, QUERIES, Seen};
