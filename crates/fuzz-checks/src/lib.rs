//! What each fuzz target checks of the project's hand-written parsers, as
//! plain functions of the input bytes: the fuzz targets in fuzz/ (outside
//! the workspace, built by scripts/fuzz.sh) are one call each, and
//! tests/replay.rs runs every committed seed and regression input through
//! them under `cargo test`, no fuzzer needed.
//!
//! A check panics when its property fails; that panic is what the fuzzer
//! reports as a crash. The parsers are reached through each crate's hidden
//! `fuzzing` module, which runs the crate's own code on bytes in memory.

pub mod head_differential;
pub mod http_read;
pub mod loadgen_response;
pub mod pieces;
pub mod postgres_messages;
pub mod proxy_exchanges;
pub mod request_scan;
pub mod resp_reply;

/// One fuzz target: its name (the file fuzz/fuzz_targets/{name}.rs, and
/// the folders of its inputs) and its check.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub name: &'static str,
    pub check: fn(&[u8]),
}

/// Every fuzz target, in the order scripts/fuzz.sh runs them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "http_head_differential",
        check: head_differential::check,
    },
    Target {
        name: "http_read_request",
        check: http_read::check,
    },
    Target {
        name: "loadgen_response",
        check: loadgen_response::check,
    },
    Target {
        name: "resp_reply",
        check: resp_reply::check,
    },
    Target {
        name: "postgres_messages",
        check: postgres_messages::check,
    },
    Target {
        name: "proxy_exchanges",
        check: proxy_exchanges::check,
    },
    Target {
        name: "request_scan",
        check: request_scan::check,
    },
];
