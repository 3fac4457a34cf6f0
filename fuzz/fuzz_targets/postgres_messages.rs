//! Fuzz target: the yielding driver's Postgres decoding (crates/fuzz-checks/src/postgres_messages.rs).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::postgres_messages::check(data));
