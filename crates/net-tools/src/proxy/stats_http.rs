//! The proxy's measurements over HTTP, for a process that runs the proxy
//! as a child (bench's `bench proxy`): any GET on the stats address answers
//! the readings so far in the Prometheus text format, the format bench
//! already reads from the servers' `/metrics`. A window's figures are the
//! differences of a reading before and one after it.
//!
//! ```text
//! proxy_connections_total 12
//! proxy_exchanges_total 40231
//! proxy_delivered_round_trip_seconds_bucket{le="0.00025"} 0
//! ...
//! proxy_delivered_round_trip_seconds_bucket{le="+Inf"} 40231
//! proxy_delivered_round_trip_seconds_sum 104.251337
//! proxy_delivered_round_trip_seconds_count 40231
//! proxy_round_trip_setting_seconds 0.002
//! proxy_bytes_total{direction="to_server"} 2511230
//! proxy_bytes_total{direction="to_client"} 7300512
//! ```
//!
//! One plain thread answers one request at a time and closes each
//! connection: a reader takes a reading every few seconds at most.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::exchanges::{ProxyStats, ROUND_TRIP_BUCKETS_US};
use super::Shared;

/// The readings as Prometheus text, `round_trip` being the proxy's setting.
pub fn render(stats: &ProxyStats, round_trip: Duration) -> String {
    let mut out = String::new();
    let mut family = |name: &str, kind: &str, help: &str| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        name.to_owned()
    };
    let connections = family(
        "proxy_connections_total",
        "counter",
        "Connections passed through to the target.",
    );
    let exchanges = family(
        "proxy_exchanges_total",
        "counter",
        "Exchanges answered: a burst of client bytes followed by the server's answer, one round trip each.",
    );
    let delivered = family(
        "proxy_delivered_round_trip_seconds",
        "histogram",
        "Each exchange's delivered round trip: from the first byte of the client's burst arriving at the proxy to the first byte of the server's answer leaving it towards the client.",
    );
    let setting = family(
        "proxy_round_trip_setting_seconds",
        "gauge",
        "The round trip the proxy adds, half each way.",
    );
    let bytes = family(
        "proxy_bytes_total",
        "counter",
        "Bytes forwarded, by direction.",
    );
    let _ = writeln!(out, "{connections} {}", stats.connections);
    let _ = writeln!(out, "{exchanges} {}", stats.exchanges);
    let mut cumulative = 0;
    for (count, bound) in stats.buckets.iter().zip(ROUND_TRIP_BUCKETS_US) {
        cumulative += count;
        let le = bound as f64 / 1e6;
        let _ = writeln!(out, "{delivered}_bucket{{le=\"{le}\"}} {cumulative}");
    }
    let _ = writeln!(out, "{delivered}_bucket{{le=\"+Inf\"}} {}", stats.exchanges);
    let sum = stats.delivered.as_secs_f64();
    let _ = writeln!(out, "{delivered}_sum {sum:.6}");
    let _ = writeln!(out, "{delivered}_count {}", stats.exchanges);
    let _ = writeln!(out, "{setting} {}", round_trip.as_secs_f64());
    let _ = writeln!(
        out,
        "{bytes}{{direction=\"to_server\"}} {}",
        stats.bytes_to_server
    );
    let _ = writeln!(
        out,
        "{bytes}{{direction=\"to_client\"}} {}",
        stats.bytes_to_client
    );
    out
}

/// Answers every connection to `listener` with the readings, until the
/// proxy stops.
pub(super) fn serve(listener: TcpListener, shared: Arc<Shared>) {
    for incoming in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        if let Ok(stream) = incoming {
            answer(stream, &shared);
        }
    }
}

/// Reads the request head (whatever it asks) and writes the readings.
fn answer(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let body = render(&shared.counters.read(), shared.round_trip());
    let reply = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}
