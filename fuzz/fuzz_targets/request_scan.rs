//! Fuzz target: the async server's request scanner against the blocking server's reader (crates/fuzz-checks/src/request_scan.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::request_scan::check(data));
