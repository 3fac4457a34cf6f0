//! Fuzz target: the blocking server's request reader (crates/fuzz-checks/src/http_read.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::http_read::check(data));
