//! The fault proxy as a program, adding a round trip to every exchange with
//! a target, for measuring by hand and from scripts: it prints where it
//! listens and where its measurements are served, then runs until killed.
//!
//!     cargo run --release -p net-tools --example latency_proxy -- 127.0.0.1:5432 2000
//!
//! The second argument is the round trip to add, in microseconds (half each
//! way). `curl -s http://<stats>/metrics` reads the exchanges so far and
//! their delivered round trips (net_tools::proxy::stats_http).

use std::net::SocketAddr;
use std::time::Duration;

use net_tools::FaultProxy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let target: SocketAddr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:5432".into())
        .parse()?;
    let round_trip_us: u64 = args.next().unwrap_or_else(|| "2000".into()).parse()?;
    let proxy = FaultProxy::start(target)?;
    proxy.set_round_trip(Duration::from_micros(round_trip_us));
    let stats = proxy.serve_stats()?;
    println!("listening on {}", proxy.addr());
    println!("stats on http://{stats}/metrics");
    loop {
        std::thread::park();
    }
}
