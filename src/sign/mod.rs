//! Signatures: keys, the keystore with trust on first use, and the signing
//! forms of each protocol.

pub mod card;
pub mod claim;
pub mod composed;
pub mod detached;
pub mod key;
pub mod key_line;
pub mod keystore;
pub mod message;
#[cfg(test)]
mod proptests;
pub mod statement;
pub mod store_error;
pub mod store_files;
pub mod trust;
