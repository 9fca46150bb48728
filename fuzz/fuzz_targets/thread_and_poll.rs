//! Fuzz target `thread_and_poll`: see `aiproto::fuzzing::thread_and_poll` for the property it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aiproto::fuzzing::thread_and_poll(data));
