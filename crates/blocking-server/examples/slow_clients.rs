//! Measures what slow clients do to a running server.
//!
//! Opens N connections that send a request head one byte per second (a
//! "slowloris"), and meanwhile sends `GET /health` once every 250 ms on fresh
//! connections, printing how long those normal requests took. Point it at
//! either server; everything targets the address given (use 127.0.0.1).
//!
//! Usage: `cargo run -p blocking-server --example slow_clients -- 127.0.0.1:8080 [connections] [seconds]`
//! (defaults: 1000 connections, 20 s).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

const HEAD: &[u8] = b"GET /health HTTP/1.1\r\nhost: slow\r\nx-padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = args
        .next()
        .ok_or("give the server address, e.g. 127.0.0.1:8080")?
        .parse()?;
    let connections: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1000);
    let seconds: u64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(20);

    let mut slow = Vec::with_capacity(connections);
    for _ in 0..connections {
        match TcpStream::connect(addr) {
            Ok(stream) => slow.push(stream),
            Err(e) => {
                println!("slow connection {} failed: {e}", slow.len());
                break;
            }
        }
    }
    println!("{} slow connections open", slow.len());

    let until = Instant::now() + Duration::from_secs(seconds);
    let dripper = std::thread::spawn(move || {
        let mut sent = 0;
        let mut closed_by_server = 0;
        while Instant::now() < until && sent < HEAD.len() {
            let mut still_open = Vec::with_capacity(slow.len());
            for mut stream in slow.drain(..) {
                if stream.write_all(&HEAD[sent..sent + 1]).is_ok() {
                    still_open.push(stream);
                } else {
                    closed_by_server += 1;
                }
            }
            slow = still_open;
            sent += 1;
            std::thread::sleep(Duration::from_secs(1));
        }
        (slow.len(), closed_by_server)
    });

    let mut latencies = Vec::new();
    let mut failures = 0;
    let started = Instant::now();
    while Instant::now() < until {
        let t = Instant::now();
        match health(addr, Duration::from_secs(30)) {
            Ok(200) => latencies.push(t.elapsed()),
            _ => failures += 1,
        }
        println!(
            "t={:>5.1}s  GET /health took {:?}",
            started.elapsed().as_secs_f64(),
            t.elapsed()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let (open, closed) = dripper.join().map_err(|_| "dripper panicked")?;
    latencies.sort();
    let pick = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q) as usize)
            .copied()
    };
    println!(
        "normal requests: {} ok, {failures} failed; latency min {:?} p50 {:?} p99 {:?} max {:?}",
        latencies.len(),
        latencies.first(),
        pick(0.5),
        pick(0.99),
        latencies.last()
    );
    println!("slow connections at the end: {open} still open, {closed} closed by the server");
    Ok(())
}

fn health(addr: SocketAddr, timeout: Duration) -> std::io::Result<u16> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.write_all(b"GET /health HTTP/1.1\r\nhost: probe\r\nconnection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let status = answer
        .get(9..12)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.parse().ok());
    status.ok_or_else(|| std::io::Error::other("no status line"))
}
