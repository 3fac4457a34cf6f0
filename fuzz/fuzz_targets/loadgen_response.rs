//! Fuzz target: loadgen's response reader (crates/fuzz-checks/src/loadgen_response.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::loadgen_response::check(data));
