//! Fuzz target `pieces_like_whole`: see `aiproto::fuzzing::pieces_like_whole` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::pieces_like_whole(data));
