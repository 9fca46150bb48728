//! Fuzz target `convert_promise`: see `aiproto::fuzzing::convert_promise` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::convert_promise(data));
