//! Receiving, for every face: arrivals go through one [`Inbox`], which reads
//! each into its messages, hands each on once (a redelivery skipped, other
//! content under a seen id handed on and flagged) and counts them.

pub use crate::delivery::inbox::{Inbox, Received};

/// The warning for a message whose id came before with other content
/// (another sender's message under that id, or an edited copy), which is
/// handed on as well; `None` for any other message.
pub fn other_content_warning(r: &Received<'_>) -> Option<String> {
    let id = r.found.and_then(crate::protocols::Found::id)?;
    r.other_content.then(|| {
        format!(
            "{}: message {} came before with other content; this one is handed on too (another sender's, or an edited copy: verify its signature)",
            r.origin,
            crate::output::escape_controls(id)
        )
    })
}
