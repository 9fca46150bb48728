//! End-to-end tests: the real `aiproto` binary on examples, fixtures and generated input.

// A failed unwrap in a test helper is a failed test, with its location.
#![allow(clippy::unwrap_used)]

mod a2a;
mod a2a_bridge;
mod a2a_signing;
mod a2a_tck;
mod bad_input;
mod broker;
pub mod clipboard;
mod completions;
mod compose;
mod compose_hsp;
mod conformance;
mod convert;
mod csdl;
mod desk;
mod email;
mod examples;
mod faces;
mod hsp;
pub mod http;
mod keys;
mod mcp;
mod mcp_http;
pub mod mqtt;
mod mqtt5;
mod msp;
mod msp_remote;
mod one_path;
mod project;
mod readme_loop;
mod relay;
mod relay_loop;
mod reports;
mod send;
mod serve_handler;
mod serve_limits;
mod sign;
mod streaming;
mod transcripts;
mod trust;
mod validate;
mod views;
mod walks;
mod workers;

mod support;

pub use support::*;
