//! Fuzz target `read_any`: see `aiproto::fuzzing::read_any` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::read_any(data));
