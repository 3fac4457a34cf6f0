//! The command line: flags in the spelling of wrk and oha, turned into a
//! validated [`Plan`] plus output options. Every value is checked here or by
//! the plan builder, so bad input fails before a connection is opened.

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use crate::duration_text::parse_duration;
use crate::plan::{default_threads, BurstConnect, LoadModel, Plan, StopAt};
use crate::stages::{parse_stages, Stage};
use crate::target::Target;
use crate::thresholds::Threshold;

/// A parsed `--stages` value (a newtype so clap treats it as one value).
#[derive(Debug, Clone, PartialEq)]
pub struct StageList(pub Vec<Stage>);

/// `loadgen URL [options]`.
#[derive(Debug, Parser)]
#[command(
    name = "loadgen",
    version,
    about = "HTTP/1.1 load generator: closed loop, burst, k6-style stages and open (constant arrival rate) with coordinated-omission correction.",
    after_help = "Examples:\n  loadgen -c 50 -d 30s http://127.0.0.1:8080/health\n  loadgen -c 10 -n 1000 http://127.0.0.1:8080/users/{rand:1-10000}\n  loadgen --burst 10000 http://127.0.0.1:8080/health\n  loadgen --burst 10000 --connect-in-request http://127.0.0.1:8080/health\n  loadgen --stages 15s:50,30s:100,15s:150,30s:0 http://127.0.0.1:8080/health\n  loadgen --rate 2000 -d 60s --threshold 'p99<50ms' http://127.0.0.1:8080/health"
)]
pub struct Cli {
    /// Target URL (http:// only); `{rand:A-B}` in it is replaced per request by a random integer in A..=B.
    #[arg(value_parser = check_url)]
    pub url: String,

    /// Connections (closed loop); the initial pool in open mode.
    #[arg(short = 'c', long, default_value_t = 50)]
    pub connections: usize,

    /// Run for this long, e.g. 30s, 2m, 1m30s (default 10s when neither -d nor -n is given).
    #[arg(short = 'd', long, value_parser = parse_duration, conflicts_with = "requests")]
    pub duration: Option<Duration>,

    /// Send exactly this many requests in total.
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,

    /// Open N connections, then send one request on each at the same instant.
    #[arg(long, value_name = "N", conflicts_with_all = ["stages", "rate", "duration", "requests"])]
    pub burst: Option<usize>,

    /// With --burst: each request opens its own connection after the release, the connect inside its latency (as JMeter's threads do), instead of every connection opened first.
    #[arg(long, requires = "burst")]
    pub connect_in_request: bool,

    /// Ramp active connections like k6 stages, e.g. 15s:50,30s:100,15s:150,30s:0.
    #[arg(long, value_parser = parse_stage_list, conflicts_with_all = ["rate", "duration", "requests"])]
    pub stages: Option<StageList>,

    /// Open model: send R requests per second whatever the responses do.
    #[arg(long, value_name = "R", value_parser = parse_rate)]
    pub rate: Option<f64>,

    /// Open model: most connections the pool may grow to.
    #[arg(long, default_value_t = 1000)]
    pub max_connections: usize,

    /// Client runtime threads (default: number of cores).
    #[arg(short = 't', long)]
    pub threads: Option<usize>,

    /// HTTP method.
    #[arg(short = 'm', long, default_value = "GET")]
    pub method: String,

    /// Extra request header 'Name: value' (repeatable).
    #[arg(short = 'H', long = "header", value_name = "HEADER", value_parser = check_header)]
    pub headers: Vec<String>,

    /// Request body.
    #[arg(short = 'b', long, conflicts_with = "body_file")]
    pub body: Option<String>,

    /// Read the request body from a file.
    #[arg(long, value_name = "FILE")]
    pub body_file: Option<PathBuf>,

    /// Per-request timeout; a request without a full response by then is an error.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub timeout: Duration,

    /// Open a new connection for every request.
    #[arg(long)]
    pub no_keepalive: bool,

    /// Print the report as JSON (the schema is in the crate README).
    #[arg(long)]
    pub json: bool,

    /// Write the report to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Pass/fail condition, e.g. 'p95<200ms', 'errors<1%', 'rps>1000' (repeatable); a failure exits with 1.
    #[arg(long = "threshold", value_name = "EXPR", value_parser = check_threshold)]
    pub thresholds: Vec<String>,
}

/// Where and how to print the report.
#[derive(Debug, Clone)]
pub struct OutputOptions {
    pub json: bool,
    pub out: Option<PathBuf>,
}

fn check_url(text: &str) -> Result<String, String> {
    Target::parse(text).map(|_| text.to_string())
}

fn check_header(text: &str) -> Result<String, String> {
    crate::request_bytes::parse_header(text).map(|_| text.to_string())
}

fn check_threshold(text: &str) -> Result<String, String> {
    Threshold::parse(text).map(|_| text.to_string())
}

fn parse_stage_list(text: &str) -> Result<StageList, String> {
    parse_stages(text).map(StageList)
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!(
            "rate '{text}' must be a positive number of requests per second"
        )),
    }
}

impl Cli {
    /// Builds the plan; the error is one line naming what is wrong.
    pub fn into_plan(self) -> Result<(Plan, OutputOptions), String> {
        let stop = match (self.duration, self.requests) {
            (_, Some(n)) => StopAt::Requests(n),
            (Some(d), None) => StopAt::Duration(d),
            (None, None) => StopAt::Duration(Duration::from_secs(10)),
        };
        let load = if let Some(connections) = self.burst {
            LoadModel::Burst {
                connections,
                connect: if self.connect_in_request {
                    BurstConnect::InRequest
                } else {
                    BurstConnect::First
                },
            }
        } else if let Some(StageList(stages)) = self.stages {
            LoadModel::Stages { stages }
        } else if let Some(rate_rps) = self.rate {
            LoadModel::Open {
                rate_rps,
                stop,
                initial_connections: self.connections.min(self.max_connections),
                max_connections: self.max_connections,
            }
        } else {
            LoadModel::Closed {
                connections: self.connections,
                stop,
            }
        };
        let body = match (&self.body, &self.body_file) {
            (Some(text), _) => text.clone().into_bytes(),
            (None, Some(path)) => std::fs::read(path)
                .map_err(|e| format!("cannot read body file '{}': {e}", path.display()))?,
            (None, None) => Vec::new(),
        };
        let mut builder = Plan::builder(self.url)
            .method(self.method)
            .body(body)
            .keep_alive(!self.no_keepalive)
            .load(load)
            .timeout(self.timeout)
            .threads(self.threads.unwrap_or_else(default_threads));
        for header in self.headers {
            builder = builder.header(header);
        }
        for threshold in self.thresholds {
            builder = builder.threshold(threshold);
        }
        let plan = builder.build().map_err(|e| e.to_string())?;
        Ok((
            plan,
            OutputOptions {
                json: self.json,
                out: self.out,
            },
        ))
    }
}

/// Turns a clap error into one line: clap's first line, with the detail
/// line appended when the first ends in a colon (missing arguments).
pub fn one_line_error(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    if first.ends_with(':') {
        if let Some(detail) = lines.next() {
            return format!("{first} {detail}");
        }
    }
    first.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<(Plan, OutputOptions), String> {
        let cli = Cli::try_parse_from(std::iter::once("loadgen").chain(args.iter().copied()))
            .map_err(|e| one_line_error(&e.to_string()))?;
        cli.into_plan()
    }

    #[test]
    fn picks_the_load_model_from_the_flags() {
        let url = "http://127.0.0.1:9/x";
        let cases: Vec<(Vec<&str>, LoadModel)> = vec![
            (
                vec![url],
                LoadModel::Closed {
                    connections: 50,
                    stop: StopAt::Duration(Duration::from_secs(10)),
                },
            ),
            (
                vec!["-c", "10", "-n", "1000", url],
                LoadModel::Closed {
                    connections: 10,
                    stop: StopAt::Requests(1000),
                },
            ),
            (
                vec!["-c", "5", "-d", "2s", url],
                LoadModel::Closed {
                    connections: 5,
                    stop: StopAt::Duration(Duration::from_secs(2)),
                },
            ),
            (
                vec!["--burst", "100", url],
                LoadModel::Burst {
                    connections: 100,
                    connect: BurstConnect::First,
                },
            ),
            (
                vec!["--burst", "100", "--connect-in-request", url],
                LoadModel::Burst {
                    connections: 100,
                    connect: BurstConnect::InRequest,
                },
            ),
            (
                vec!["--rate", "200", "-d", "1s", "--max-connections", "4", url],
                LoadModel::Open {
                    rate_rps: 200.0,
                    stop: StopAt::Duration(Duration::from_secs(1)),
                    initial_connections: 4,
                    max_connections: 4,
                },
            ),
        ];
        for (args, want) in cases {
            let (plan, _) = parse(&args).expect("valid arguments");
            assert_eq!(plan.load, want, "{args:?}");
        }
    }

    #[test]
    fn bad_input_gives_one_line_naming_the_problem() {
        let cases = [
            (vec!["not-a-url"], "URL"),
            (vec!["--stages", "15s:abc", "http://127.0.0.1:9/"], "stage"),
            (
                vec!["--threshold", "p97<1ms", "http://127.0.0.1:9/"],
                "threshold",
            ),
            (vec!["--frobnicate", "http://127.0.0.1:9/"], "--frobnicate"),
            (vec!["-d", "10parsecs", "http://127.0.0.1:9/"], "duration"),
            (
                vec!["--burst", "5", "-n", "3", "http://127.0.0.1:9/"],
                "cannot be used",
            ),
            (
                vec!["--connect-in-request", "http://127.0.0.1:9/"],
                "--burst",
            ),
            (vec![], "URL"),
        ];
        for (args, needle) in cases {
            let err = parse(&args).expect_err("invalid arguments");
            assert!(!err.contains('\n'), "{err}");
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }
}
