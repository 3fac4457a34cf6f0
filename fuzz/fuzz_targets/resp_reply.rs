//! Fuzz target: the yielding driver's RESP decoder (crates/fuzz-checks/src/resp_reply.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::resp_reply::check(data));
