//! The servers' log output, defined once: `RUST_LOG` picks what is logged
//! (`info` by default), `--log-format` how it is written — `text`,
//! tracing-subscriber's lines for people, or `json`, its JSON formatter, one
//! object per line (`timestamp`, `level`, `fields` with the message and the
//! event's fields, `target`) for a log collector.
//!
//! This builds the subscriber and installs nothing: the server's binary
//! makes it the global default (a test harness installs its own). Writing
//! to standard output is the subscriber's, when an event is logged; nothing
//! here opens a file or a socket.

use tracing_subscriber::EnvFilter;

use crate::settings::LogFormat;

/// The subscriber a server logs through, in `format`.
pub fn subscriber(format: LogFormat) -> Box<dyn tracing::Subscriber + Send + Sync> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => Box::new(builder.finish()),
        LogFormat::Json => Box::new(builder.json().finish()),
    }
}
