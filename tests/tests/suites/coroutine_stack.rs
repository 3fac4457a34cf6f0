//! The virtual threads' fixed stacks: may does not grow a coroutine's stack
//! and an overflow ends the whole process, so the default must hold the
//! deepest route with a margin.
//!
//! The server runs as a child process with `--report-stack-use` (an odd
//! stack size, for which may prints each coroutine's use as it ends), serves
//! one request of every kind on its own connection (each connection is a
//! coroutine that ends when the connection closes), and the deepest use is
//! read from its output. This is the test build; a release build's frames
//! are smaller. See the figures with
//! `cargo test -p harness --test suites -- coroutine_stack --nocapture`.

use std::time::Duration;

use blocking_server::DEFAULT_COROUTINE_STACK_KIB;
use harness::http;
use harness::process::ChildServer;
use harness::Server;

/// One request of each kind the handlers and the connector know, the
/// error paths included (deep JSON, a bad head, a chunked body).
const REQUESTS: &[&[u8]] = &[
    b"GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /cpu?n=1000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /users/1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /users/99999 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /users/1/cache HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    // Not in the cache (the seed stops at 10,000): Redis, then Postgres.
    b"GET /users/10001/cache HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /posts/1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /nope HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"DELETE /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost t\r\n\r\n",
    b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{\"FirstName\":\"A\",\"LastName\":\"B\",\"Age\":1}",
    b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n{\"Fir\r\n0\r\n\r\n",
];

/// `[[[...]]]` 127 deep: serde_json's recursion, just inside its limit.
fn deep_json() -> Vec<u8> {
    let body = format!("{}{}", "[".repeat(127), "]".repeat(127));
    let mut request = format!(
        "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    request.extend(body.as_bytes());
    request
}

/// The stack size and each ended connection coroutine's use, in bytes, in
/// the order they ended, from may's lines
/// `coroutine name = Some("connection"), stack size = N,  used size = U`.
fn connection_stack_use(log: &str) -> (usize, Vec<usize>) {
    let word = std::mem::size_of::<usize>();
    let number = |line: &str, key: &str| -> Option<usize> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let mut size = 0;
    let mut used = Vec::new();
    for line in log
        .lines()
        .filter(|l| l.contains("connection") && l.contains("used size"))
    {
        if let (Some(s), Some(u)) = (number(line, "stack size ="), number(line, "used size =")) {
            size = s * word;
            used.push(u * word);
        }
    }
    (size, used)
}

#[test]
fn the_deepest_route_leaves_a_quarter_of_the_default_coroutine_stack() {
    let server = ChildServer::start(
        Server::Virtual,
        env!("CARGO_BIN_EXE_test-blocking-server"),
        &["--report-stack-use"],
    );
    let mut requests: Vec<Vec<u8>> = REQUESTS.iter().map(|r| r.to_vec()).collect();
    requests.push(deep_json());
    for request in &requests {
        http::send_raw(server.addr(), request).unwrap_or_else(|e| {
            panic!(
                "no answer to {:?}: {e}\n{}",
                String::from_utf8_lossy(&request[..40.min(request.len())]),
                server.log_text()
            )
        });
    }
    // The last connection's coroutine ends just after its answer.
    std::thread::sleep(Duration::from_millis(500));
    let log = server.log_text();
    let (size, uses) = connection_stack_use(&log);
    let (seen, used) = (uses.len(), uses.iter().copied().max().unwrap_or(0));
    let default = DEFAULT_COROUTINE_STACK_KIB as usize * 1024;
    println!(
        "{seen} connection coroutines, in order of the requests: {uses:?} bytes; the deepest \
         used {used} ({:.1} KiB) of {size}; the default stack is {default} bytes",
        used as f64 / 1024.0
    );
    assert!(
        seen >= requests.len(),
        "{seen} connection coroutines reported for {} connections:\n{log}",
        requests.len()
    );
    // A quarter of the stack to spare in this unoptimised build, whose
    // frames are the larger ones.
    assert!(
        used * 4 <= default * 3,
        "the deepest connection used {used} bytes, more than three quarters of the default \
         stack of {default}: raise DEFAULT_COROUTINE_STACK_KIB"
    );
}
