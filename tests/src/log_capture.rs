//! The servers' log lines, kept in memory so a test can assert on what a
//! server said (the stall detector's warnings name a route and a fix).
//!
//! tracing has one global subscriber per process, and a server's threads are
//! not the test's thread, so the capture is process-wide: call
//! [`capture_logs`] before the first `spawn_app` of the test binary, and keep
//! to one server per test binary when a test asserts that something was *not*
//! logged. With `TEST_LOG` set the lines are also printed to stderr, as the
//! harness's usual switch does (`RUST_LOG` picks the level, `info` by default).

use std::io::Write;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Everything logged in this process since [`capture_logs`] first ran.
#[derive(Clone)]
pub struct CapturedLogs {
    bytes: Arc<Mutex<Vec<u8>>>,
}

impl std::fmt::Debug for CapturedLogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CapturedLogs").finish_non_exhaustive()
    }
}

/// Installs the capturing subscriber (once per process) and returns it.
/// Panics if another global subscriber was installed first.
pub fn capture_logs() -> CapturedLogs {
    static CAPTURE: OnceLock<CapturedLogs> = OnceLock::new();
    CAPTURE
        .get_or_init(|| {
            let logs = CapturedLogs {
                bytes: Arc::new(Mutex::new(Vec::new())),
            };
            let writer = logs.clone();
            let layer = tracing_subscriber::fmt::layer()
                .with_ansi(false)
                .with_writer(move || LineWriter {
                    logs: writer.clone(),
                    echo: std::env::var_os("TEST_LOG").is_some(),
                });
            tracing_subscriber::registry()
                .with(server_settings::logging::filter_from_env())
                .with(layer)
                .try_init()
                .unwrap_or_else(|e| {
                    panic!("capture_logs must run before any other subscriber: {e}")
                });
            logs
        })
        .clone()
}

impl CapturedLogs {
    /// Every line captured so far.
    pub fn lines(&self) -> Vec<String> {
        let bytes = self.bytes.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The captured lines that contain every one of `needles`.
    pub fn lines_with(&self, needles: &[&str]) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|line| needles.iter().all(|n| line.contains(n)))
            .collect()
    }

    /// Waits up to `limit` for a line containing every one of `needles`.
    pub fn wait_for(&self, needles: &[&str], limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(line) = self.lines_with(needles).into_iter().next() {
                return Some(line);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// [`Self::wait_for`], which must find the line: panics, saying there is
    /// no `what` and showing every line captured, when none came in time.
    pub fn expect_line(&self, needles: &[&str], limit: Duration, what: &str) -> String {
        self.wait_for(needles, limit)
            .unwrap_or_else(|| panic!("no {what} in:\n{}", self.lines().join("\n")))
    }

    /// The warning naming `route` (`route="..."`) with every one of
    /// `words`, waited for up to 10 s; panics, saying there is no `what`
    /// naming the route, when none came.
    pub fn expect_route_warning(&self, route: &str, words: &[&str], what: &str) -> String {
        let named = format!("route=\"{route}\"");
        let needles: Vec<&str> = ["WARN", named.as_str()]
            .into_iter()
            .chain(words.iter().copied())
            .collect();
        let what = format!("{what} naming {route}");
        self.expect_line(&needles, Duration::from_secs(10), &what)
    }
}

/// One event's formatted line, appended to the capture (and echoed).
struct LineWriter {
    logs: CapturedLogs,
    echo: bool,
}

impl Write for LineWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.logs
            .bytes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        if self.echo {
            let _ = std::io::stderr().write_all(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
