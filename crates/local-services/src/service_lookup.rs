//! The one way both services are found: the running one at the configured URL
//! if it answers, else a throwaway one started from installed binaries, with
//! messages that say why each step was passed over.

use std::time::Duration;

use anyhow::{bail, Context as _};
use contract::settings::redact_url;

/// How long a running server gets to answer before we start our own.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// What differs between Postgres and Redis in the lookup.
pub(crate) struct ServiceSpec {
    /// `"Postgres"`, `"Redis"`: for messages.
    pub(crate) name: &'static str,
    /// The environment variable holding the URL (`DATABASE_URL`, `REDIS_URL`).
    pub(crate) url_var: &'static str,
    pub(crate) default_url: &'static str,
    /// Which binaries a throwaway one needs, and where they were looked for.
    pub(crate) binaries_missing: &'static str,
    /// The package to install.
    pub(crate) package: &'static str,
}

/// Starts a throwaway service, trying the check it is given on it until it
/// passes: its URL, or `None` when the binaries are not installed.
pub(crate) type StartThrowaway =
    fn(&dyn Fn(&str) -> anyhow::Result<()>) -> anyhow::Result<Option<String>>;

/// Where the service is: its URL, and whether this process started it.
pub(crate) struct Found {
    pub(crate) url: String,
    pub(crate) started_here: bool,
}

/// Probes the configured URL (unless `LOCAL_SERVICES_FORCE_THROWAWAY` is
/// set), giving it [`PROBE_TIMEOUT`] to answer, then starts a throwaway
/// service with `start` (unless `LOCAL_SERVICES_NO_THROWAWAY` forbids it),
/// which tries the same probe on it until it answers. `start` gives
/// `Ok(None)` when the binaries are not installed.
pub(crate) fn find_running_or_start(
    spec: &ServiceSpec,
    probe: fn(&str, Duration) -> anyhow::Result<()>,
    start: StartThrowaway,
) -> anyhow::Result<Found> {
    let answers = |url: &str| probe(url, PROBE_TIMEOUT);
    let ServiceSpec {
        name,
        url_var,
        default_url,
        binaries_missing,
        package,
    } = spec;
    let url = std::env::var(url_var)
        .ok()
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| (*default_url).to_owned());
    let why_not_running = if crate::throwaway_forced() {
        "LOCAL_SERVICES_FORCE_THROWAWAY is set".to_owned()
    } else {
        match answers(&url) {
            Ok(()) => {
                return Ok(Found {
                    url,
                    started_here: false,
                })
            }
            Err(error) => format!("no {name} answers at {} ({error:#})", redact_url(&url)),
        }
    };
    if crate::throwaway_forbidden() {
        bail!("{why_not_running} and LOCAL_SERVICES_NO_THROWAWAY forbids a throwaway one; install {package} or set {url_var}");
    }
    match start(&answers)
        .with_context(|| format!("{why_not_running}, and starting a throwaway {name} failed"))?
    {
        Some(url) => Ok(Found {
            url,
            started_here: true,
        }),
        None => {
            bail!("{why_not_running} and {binaries_missing}; install {package} or set {url_var}")
        }
    }
}
