//! Fuzz target `cbp_frames`: see `aiproto::fuzzing::cbp_frames` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::cbp_frames(data));
