//! The servers' log output, defined once: `RUST_LOG` picks what is logged
//! (`info` by default; a level, or `target=level` pairs such as
//! `info,sqlx=warn`: tracing-subscriber's `Targets`, which needs no regex
//! engine in the build, unlike its `EnvFilter` and that one's span filters), `--log-format` how it is written — `text`,
//! tracing-subscriber's lines for people, or `json`, its JSON formatter, one
//! object per line (`timestamp`, `level`, `fields` with the message and the
//! event's fields, `target`) for a log collector.
//!
//! This builds the subscriber and installs nothing: the server's binary
//! makes it the global default (a test harness installs its own). Writing
//! to standard output is the subscriber's, when an event is logged; nothing
//! here opens a file or a socket.

use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;

use crate::LogFormat;

/// What `RUST_LOG` asks to be logged; `info` when it is unset or does not
/// parse.
pub fn filter_from_env() -> Targets {
    std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO))
}

/// The subscriber a server logs through, in `format`.
pub fn subscriber(format: LogFormat) -> Box<dyn tracing::Subscriber + Send + Sync> {
    let registry = tracing_subscriber::registry().with(filter_from_env());
    match format {
        LogFormat::Text => Box::new(registry.with(tracing_subscriber::fmt::layer())),
        LogFormat::Json => Box::new(registry.with(tracing_subscriber::fmt::layer().json())),
    }
}
