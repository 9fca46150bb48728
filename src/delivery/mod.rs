//! Between messages and transports. Going out, each message becomes a
//! payload with its routing ([`routing`], [`mail`]); coming in, arrivals
//! become messages, each handed on once ([`inbox`]), and an HSP message
//! that asks for it gets its ACK or NACK ([`receipt`]), and a TaskResult
//! is checked against the request it claims to answer ([`answer`]); the
//! HTTP binding
//! ([`binding`]) validates, stores and answers what is POSTed to a server;
//! an archive holds each message once ([`archive`]), and every place that
//! remembers messages tells one from another alike ([`same_message`]).
//! Transports below know none of the protocols.

pub mod a2a_call;
pub mod answer;
pub mod archive;
pub mod binding;
pub mod handler;
pub mod inbox;
pub mod mail;
#[cfg(test)]
mod proptests;
pub mod receipt;
mod replies;
pub mod routing;
pub mod same_message;
pub mod stored;
