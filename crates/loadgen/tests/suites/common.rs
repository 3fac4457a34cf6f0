//! An in-process HTTP/1.1 test server for the load generator's tests: it
//! counts requests and connections, answers `/fail` with 503, and can stall
//! one chosen request for a known time, which is how the tests inject the
//! server pause that coordinated-omission correction must expose; it can
//! also listen with a tiny backlog and accept nothing for a while, so that
//! the kernel drops the SYNs of connections beyond the backlog and their
//! clients' connects wait for a retransmit.

use std::net::SocketAddr;
use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use loadgen::{LoadModel, Plan, PlanBuilder, Report, StopAt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server saw.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) requests: AtomicU64,
    pub(crate) connections: AtomicU64,
    pub(crate) open_connections: AtomicUsize,
    pub(crate) peak_open_connections: AtomicUsize,
}

/// How the server behaves.
#[derive(Clone, Copy, Default)]
pub(crate) struct Behaviour {
    /// Stall the response to the request with this 1-based sequence number.
    pub(crate) stall_request: Option<u64>,
    pub(crate) stall_for: Duration,
    /// Stall every response by this much.
    pub(crate) delay_every_response: Duration,
    /// Hold every response until this many connections have been accepted
    /// (at most 10 s), so a test can see them all open at once however slowly
    /// this server gets round to accepting them on a busy machine.
    pub(crate) hold_until_connections: u64,
    /// The listen backlog, when not 128 (std's): with 1 the kernel queues two
    /// connections for the server and drops the SYNs of any more.
    pub(crate) listen_backlog: Option<u32>,
    /// Accept nothing for this long after the server starts.
    pub(crate) accept_after: Duration,
}

/// A plan for `url`: a closed loop of `connections` until `stop`, its
/// other settings to add.
pub(crate) fn closed_loop(url: String, connections: usize, stop: StopAt) -> PlanBuilder {
    Plan::builder(url).load(LoadModel::Closed { connections, stop })
}

/// `plan` built and run to its end: its report. Both must succeed.
pub(crate) fn run_to_end(plan: PlanBuilder) -> Report {
    let plan = plan.build().expect("valid plan");
    loadgen::run_blocking(&plan).expect("run")
}

pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    pub(crate) counters: Arc<Counters>,
}

impl TestServer {
    /// A server that answers every request after `delay`.
    pub(crate) fn answering_after(delay: Duration) -> TestServer {
        TestServer::start(Behaviour {
            delay_every_response: delay,
            ..Behaviour::default()
        })
    }

    pub(crate) fn start(behaviour: Behaviour) -> TestServer {
        let counters = Arc::new(Counters::default());
        let shared = Arc::clone(&counters);
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("test server runtime");
            runtime.block_on(async move {
                let listener = listen(behaviour.listen_backlog.unwrap_or(128));
                addr_tx
                    .send(listener.local_addr().expect("test server address"))
                    .expect("the test is waiting for the address");
                tokio::time::sleep(behaviour.accept_after).await;
                while let Ok((socket, _)) = listener.accept().await {
                    shared.connections.fetch_add(1, Ordering::SeqCst);
                    let open = shared.open_connections.fetch_add(1, Ordering::SeqCst) + 1;
                    shared
                        .peak_open_connections
                        .fetch_max(open, Ordering::SeqCst);
                    let counters = Arc::clone(&shared);
                    tokio::spawn(async move {
                        serve(socket, &counters, behaviour).await;
                        counters.open_connections.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            });
        });
        let addr = addr_rx.recv().expect("test server address");
        TestServer { addr, counters }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub(crate) fn requests(&self) -> u64 {
        self.counters.requests.load(Ordering::SeqCst)
    }

    pub(crate) fn connections(&self) -> u64 {
        self.counters.connections.load(Ordering::SeqCst)
    }

    pub(crate) fn peak_open_connections(&self) -> usize {
        self.counters.peak_open_connections.load(Ordering::SeqCst)
    }
}

/// A listener on a free port of 127.0.0.1 with `backlog`.
fn listen(backlog: u32) -> TcpListener {
    let socket = tokio::net::TcpSocket::new_v4().expect("test server socket");
    socket
        .bind("127.0.0.1:0".parse().expect("an address"))
        .expect("bind test server");
    socket.listen(backlog).expect("listen")
}

async fn serve(mut socket: TcpStream, counters: &Counters, behaviour: Behaviour) {
    let _ = socket.set_nodelay(true);
    let mut buf = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    loop {
        // Parse as many complete requests as are buffered.
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut request = httparse::Request::new(&mut headers);
            let head_len = match request.parse(&buf) {
                Ok(httparse::Status::Complete(n)) => n,
                Ok(httparse::Status::Partial) => break,
                Err(_) => return,
            };
            let body_len: usize = request
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() < head_len + body_len {
                break;
            }
            let close = request.headers.iter().any(|h| {
                h.name.eq_ignore_ascii_case("connection") && h.value.eq_ignore_ascii_case(b"close")
            });
            let failing = request.path.is_some_and(|p| p.starts_with("/fail"));
            buf.drain(..head_len + body_len);

            let number = counters.requests.fetch_add(1, Ordering::SeqCst) + 1;
            if behaviour.stall_request == Some(number) {
                tokio::time::sleep(behaviour.stall_for).await;
            }
            let held_since = tokio::time::Instant::now();
            while counters.connections.load(Ordering::SeqCst) < behaviour.hold_until_connections
                && held_since.elapsed() < Duration::from_secs(10)
            {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            if !behaviour.delay_every_response.is_zero() {
                tokio::time::sleep(behaviour.delay_every_response).await;
            }
            let response: &[u8] = if failing {
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy"
            } else {
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
            };
            if socket.write_all(response).await.is_err() || close {
                return;
            }
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Runs the built `loadgen` binary with `args`: its exit code, stdout and stderr.
pub(crate) fn run_loadgen(args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(args)
        .output()
        .expect("run loadgen");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
