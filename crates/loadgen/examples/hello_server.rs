//! A tiny, fast HTTP/1.1 server for measuring the load generator itself
//! (scripts/compare-wrk.sh points both wrk and loadgen at it): every request
//! head gets a small JSON body on a kept-alive connection. It understands
//! only bodiless requests, which is all a throughput comparison sends.
//!
//! Usage: `cargo run --release -p loadgen --example hello_server -- [ADDR] [THREADS]`
//! (defaults 127.0.0.1:8089 and 1 thread).

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}";

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8089".to_string());
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = TcpListener::bind(&addr).await?;
        eprintln!("hello_server listening on {}", listener.local_addr()?);
        loop {
            let (socket, _) = listener.accept().await?;
            tokio::spawn(serve(socket));
        }
    })
}

/// Answers every complete request head in what was read, in one write.
async fn serve(mut socket: TcpStream) {
    let _ = socket.set_nodelay(true);
    let mut buf = vec![0u8; 8192];
    let mut filled = 0;
    let mut out = Vec::with_capacity(RESPONSE.len() * 4);
    loop {
        let n = match socket.read(&mut buf[filled..]).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        filled += n;
        let mut start = 0;
        while let Some(end) = find_head_end(&buf[start..filled]) {
            out.extend_from_slice(RESPONSE);
            start += end;
        }
        buf.copy_within(start..filled, 0);
        filled -= start;
        if filled == buf.len() {
            return; // a head larger than the buffer: not a client we serve
        }
        if !out.is_empty() {
            if socket.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
    }
}

fn find_head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| p + 4)
}
