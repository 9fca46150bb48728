//! Fuzz target `signatures`: see `aiproto::fuzzing::signatures` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::signatures(data));
