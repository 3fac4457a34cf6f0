//! The command line both reference servers share, written once: the common
//! flags ([`CommonSettings`], each from contract's default, then the
//! environment, then the flag), the thread counts' default ([`cores`]), and
//! what `--log-format` and `RUST_LOG` set up ([`logging`]); and for tests,
//! settings parsed from a command line written as one string ([`FromLine`]).
//!
//! Each server flattens [`CommonSettings`] into its own `Settings`; bench
//! and the tests parse the servers' own settings through them. The
//! defaults themselves are data in `contract::settings`, so a crate that
//! only needs to know where a server listens links no flag parser.

mod common;
mod from_line;
pub mod logging;

pub use common::{cores, parse_bind, threads_or_cores, CommonSettings, LogFormat};
pub use from_line::FromLine;
