//! Every connection layer under a low open-file limit: more idle clients
//! than the limit allows must wait in the backlog, not take the descriptors
//! the pools need (contract::open_files). Without the cap, `accept` used
//! them all, every new pool connection failed with EMFILE, and each request
//! waited out the acquire timeout for a 503 (how a seed run's
//! 10,000-connection burst stalled on virtual threads' pinning driver). A
//! virtual-thread connection holds two descriptors (its socket and the
//! drain's handle), one elsewhere.

use std::net::TcpStream;
use std::time::Duration;

use harness::process::ChildServer;
use harness::{Conn, Server};

/// The child's open-file limit, soft and hard, so it cannot raise it.
const OPEN_FILES: &str = "--nofile=1000:1000";
/// Idle clients: more than the limit, at one descriptor each.
const IDLE_CLIENTS: usize = 1_200;

fn a_query_is_answered_with_more_idle_clients_than_descriptors(server: Server) {
    let name = server.name();
    // This process holds the clients' ends.
    loadgen::ensure_fd_capacity(IDLE_CLIENTS).expect("open-file limit for the clients");
    let built = match server {
        Server::Async | Server::AsyncDeadpool | Server::AsyncPipelined => {
            env!("CARGO_BIN_EXE_test-async-server")
        }
        _ => env!("CARGO_BIN_EXE_test-blocking-server"),
    };
    let binary = harness::process::binary(server, built);
    // Pooled connections idle for a second are closed (the async server's
    // pools keep the ones start-up opened), so the query below needs a new
    // one: a descriptor.
    let child = ChildServer::start_program(
        server,
        "prlimit",
        &[OPEN_FILES, &binary],
        &["--pool-idle-timeout-s", "1"],
    );
    // The first connection is accepted first; the others are idle clients.
    let mut first = Conn::open(child.addr()).expect("connect");
    let idle: Vec<TcpStream> = (0..IDLE_CLIENTS)
        .map(|i| TcpStream::connect(child.addr()).unwrap_or_else(|e| panic!("client {i}: {e}")))
        .collect();
    // Let the acceptor take every connection it will, and the pools' idle
    // connections time out.
    std::thread::sleep(Duration::from_millis(2_500));
    let r = first
        .exchange(
            b"GET /users/1 HTTP/1.1\r\nHost: t\r\n\r\n",
            Duration::from_secs(20),
        )
        .unwrap_or_else(|e| panic!("{name}: /users/1: {e}\n{}", child.log_text()));
    assert_eq!(r.status, 200, "{name}: {}\n{}", r.text(), child.log_text());
    if matches!(server, Server::Virtual | Server::VirtualYielding) {
        // Below its own `--max-connections`, virtual threads warn.
        assert!(
            child
                .log_text()
                .contains("the open-file limit caps the connections"),
            "{name}: no cap in the log:\n{}",
            child.log_text()
        );
    }
    drop(idle);
}

harness::test_cases! {
    a_query_is_answered_with_more_idle_clients_than_descriptors;
    the_nio_connector_keeps_descriptors_for_the_pool(Server::Blocking);
    the_async_server_keeps_descriptors_for_the_pool_sqlx(Server::Async);
    the_async_server_keeps_descriptors_for_the_pool_deadpool(Server::AsyncDeadpool);
    virtual_threads_keep_descriptors_for_the_pool_pinning(Server::Virtual);
    virtual_threads_keep_descriptors_for_the_pool_yielding(Server::VirtualYielding);
}
