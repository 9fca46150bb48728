//! What a conversion could not carry over, per message.

use serde::Serialize;

use crate::model::Loss;
use crate::protocols::Found;

/// The loss report of one converted message (`convert --format json`
/// writes it on stderr).
#[derive(Debug, Serialize)]
pub struct LossRecord<'a> {
    pub source: &'a str,
    pub index: usize,
    pub line: usize,
    pub dropped: &'a [Loss],
}

impl<'a> LossRecord<'a> {
    pub fn new(source: &'a str, found: &Found, dropped: &'a [Loss]) -> Self {
        LossRecord {
            source,
            index: found.index,
            line: found.line,
            dropped,
        }
    }
}
