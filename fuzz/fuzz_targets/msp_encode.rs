//! Fuzz target `msp_encode`: see `aiproto::fuzzing::msp_encode` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::msp_encode(data));
