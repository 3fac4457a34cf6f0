//! A real Prometheus for the tests (Debian's `prometheus` package, which
//! .ci/run installs): started as a child process on a free loopback port
//! with a generated configuration that scrapes the given servers, its data
//! in a throwaway directory, killed (by its own process id) on drop; and its
//! HTTP API's instant query, which is how a dashboard reads it.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::http;

/// A running Prometheus.
pub struct Prometheus {
    child: Child,
    addr: SocketAddr,
    dir: PathBuf,
}

/// The generated configuration: one job, `servers`, as in
/// observe/prometheus.yml, scraping every `every`.
fn config(targets: &[SocketAddr], every: Duration) -> String {
    let targets: Vec<String> = targets.iter().map(|t| format!("\"{t}\"")).collect();
    format!(
        "global:\n  scrape_interval: {ms}ms\n  evaluation_interval: {ms}ms\n\
         scrape_configs:\n  - job_name: servers\n    metrics_path: /metrics\n    \
         static_configs:\n      - targets: [{}]\n",
        targets.join(", "),
        ms = every.as_millis()
    )
}

impl Prometheus {
    /// Starts Prometheus scraping `targets` every `every`; returns once its
    /// API is ready (at most 30 s).
    pub fn start(targets: &[SocketAddr], every: Duration) -> anyhow::Result<Prometheus> {
        let addr = TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let dir = std::env::temp_dir().join(format!(
            "harness-prometheus-{}-{}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let config_path = dir.join("prometheus.yml");
        std::fs::write(&config_path, config(targets, every))?;
        let log = std::fs::File::create(dir.join("prometheus.log"))?;
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdout(Stdio::from(log.try_clone()?))
            .stderr(Stdio::from(log))
            .spawn()
            .context("cannot run prometheus (apt-get install prometheus)")?;
        let prometheus = Prometheus { child, addr, dir };
        prometheus.wait_ready(Duration::from_secs(30))?;
        Ok(prometheus)
    }

    fn wait_ready(&self, limit: Duration) -> anyhow::Result<()> {
        let every = Duration::from_millis(100);
        self.poll_until((limit, every), "prometheus not ready", || {
            Ok(http::send(self.addr, "GET", "/-/ready", &[], b"").is_ok_and(|r| r.status == 200))
        })
    }

    /// Asks `done` every `every` until it says yes, for at most `limit`;
    /// after that an error saying `not_yet`, with Prometheus's log.
    fn poll_until(
        &self,
        (limit, every): (Duration, Duration),
        not_yet: &str,
        mut done: impl FnMut() -> anyhow::Result<bool>,
    ) -> anyhow::Result<()> {
        let deadline = Instant::now() + limit;
        loop {
            if done()? {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("{not_yet} within {limit:?}; log:\n{}", self.log());
            }
            std::thread::sleep(every);
        }
    }

    /// What Prometheus has logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }

    /// The instant query `expr` now: the `data.result` array of the answer.
    /// An answer that is not `"status": "success"` (a query that does not
    /// parse, say) is an error carrying Prometheus's own message.
    pub fn query(&self, expr: &str) -> anyhow::Result<Vec<serde_json::Value>> {
        let path = format!("/api/v1/query?query={}", percent_encode(expr));
        let answer = http::send(self.addr, "GET", &path, &[], b"")?;
        let body: serde_json::Value = serde_json::from_slice(&answer.body)
            .with_context(|| format!("prometheus answered {}: {}", answer.status, answer.text()))?;
        if body["status"] != "success" {
            bail!("{expr}: {} {}", body["errorType"], body["error"]);
        }
        Ok(body["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default())
    }

    /// The value of a query that gives one sample (`sum(...)`); `None` when
    /// it gives none.
    pub fn scalar(&self, expr: &str) -> anyhow::Result<Option<f64>> {
        let result = self.query(expr)?;
        Ok(result
            .first()
            .and_then(|sample| sample["value"][1].as_str())
            .and_then(|v| v.parse().ok()))
    }

    /// Waits until `count` targets are up (at most `limit`).
    pub fn wait_for_targets(&self, count: usize, limit: Duration) -> anyhow::Result<()> {
        let every = Duration::from_millis(200);
        let not_yet = format!("{count} targets not up");
        self.poll_until((limit, every), &not_yet, || {
            Ok(self.scalar("count(up == 1)")? == Some(count as f64))
        })
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `text` for a URL's query string: every byte but the unreserved ones
/// escaped, as RFC 3986 allows.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_escaped_for_the_url() {
        assert_eq!(
            percent_encode("sum(x{a=\"b c\"})"),
            "sum%28x%7Ba%3D%22b%20c%22%7D%29"
        );
    }
}
