//! Fuzz target `crosstalk_canonical`: see `aiproto::fuzzing::crosstalk_canonical` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::crosstalk_canonical(data));
