//! Fuzz target: the TCP proxy's exchange counting (crates/fuzz-checks/src/proxy_exchanges.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::proxy_exchanges::check(data));
