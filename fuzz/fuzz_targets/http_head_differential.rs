//! Fuzz target: the servers' head parser against httparse (crates/fuzz-checks/src/head_differential.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::head_differential::check(data));
