//! Between messages and transports: what a delivery does with the
//! messages themselves (an archive that holds each message once).

pub mod archive;
