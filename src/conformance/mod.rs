//! The conformance kit: test vectors for the four protocols, shipped inside
//! the binary, and the grading of any implementation against them — a
//! parser or verifier run as a command, an HTTP endpoint, or a live HSP
//! agent on an MQTT broker.
//!
//! The kit grades from the outside. Each vector's verdict was decided from
//! the specs when the kit was written (`conformance/generate.py`), so this
//! module never asks aiproto's own readers what a vector means: aiproto is
//! graded by the same rules as any other implementation.

pub mod agent;
pub mod baseline;
pub mod grade;
pub mod html;
pub mod http;
pub mod parser;
pub mod records;
pub mod vectors;
