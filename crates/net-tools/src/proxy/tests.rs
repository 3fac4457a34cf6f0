//! The proxy's own tests: its modes, the round trip it adds, what it
//! measures of the exchanges it carries, and its sockets' options.

use super::*;

#[test]
fn urls_are_rewritten_around_the_authority() {
    let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
    assert_eq!(
        url_with_addr("postgres://postgres@127.0.0.1:5432/t_1", addr),
        "postgres://postgres@127.0.0.1:4000/t_1"
    );
    assert_eq!(
        url_with_addr("redis://127.0.0.1:6379", addr),
        "redis://127.0.0.1:4000"
    );
    assert_eq!(
        url_addr("postgres://u:p@127.0.0.1:5433/x").unwrap().port(),
        5433
    );
    assert_eq!(url_addr("redis://127.0.0.1").unwrap().port(), 6379);
}

/// An upstream that echoes what it reads.
fn echo_server() -> SocketAddr {
    let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
    let up_addr = upstream.local_addr().unwrap();
    thread::spawn(move || {
        for s in upstream.incoming().flatten() {
            thread::spawn(move || {
                let mut s = s;
                let mut buf = [0u8; 64];
                while let Ok(n) = s.read(&mut buf) {
                    if n == 0 || s.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    up_addr
}

#[test]
fn a_round_trip_delays_every_chunk_without_queueing_them() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    let rt = Duration::from_millis(300);
    proxy.set_round_trip(rt);
    assert_eq!(proxy.round_trip(), rt);
    let mut c = TcpStream::connect(proxy.addr()).unwrap();
    c.set_nodelay(true).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // One ping: one round trip through the proxy, plus the echo's own.
    let started = Instant::now();
    c.write_all(b"p").unwrap();
    let mut one = [0u8; 1];
    c.read_exact(&mut one).unwrap();
    let single = started.elapsed();
    assert!(single >= rt, "one round trip took {single:?}, under {rt:?}");
    // Ten pings sent 10 ms apart: they overlap in flight, so all ten take
    // one round trip more than the 90 ms of sending (a proxy that held
    // each chunk for its latency before reading the next took 900 ms).
    let started = Instant::now();
    for _ in 0..10 {
        c.write_all(b"p").unwrap();
        thread::sleep(Duration::from_millis(10));
    }
    let mut ten = [0u8; 10];
    c.read_exact(&mut ten).unwrap();
    let all = started.elapsed();
    assert!(
        all >= rt && all < rt * 2,
        "ten pipelined pings took {all:?} with a {rt:?} round trip"
    );
    // Off again: no added latency.
    proxy.set_round_trip(Duration::ZERO);
    let started = Instant::now();
    c.write_all(b"p").unwrap();
    c.read_exact(&mut one).unwrap();
    assert!(started.elapsed() < rt, "{:?}", started.elapsed());
}

#[test]
fn proxy_passes_refuses_and_stalls() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    let roundtrip = |timeout_ms: u64| -> std::io::Result<Vec<u8>> {
        let mut c = TcpStream::connect(proxy.addr())?;
        c.set_read_timeout(Some(Duration::from_millis(timeout_ms)))?;
        c.write_all(b"ping")?;
        let mut buf = [0u8; 4];
        c.read_exact(&mut buf)?;
        Ok(buf.to_vec())
    };
    assert_eq!(roundtrip(2000).unwrap(), b"ping");
    proxy.set_mode(Mode::Refuse);
    assert!(roundtrip(2000).is_err());
    proxy.set_mode(Mode::Stall);
    let err = roundtrip(300).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{err}"
    );
    proxy.set_mode(Mode::Pass);
    assert_eq!(roundtrip(2000).unwrap(), b"ping");
}

/// One ping and its echo through `c`, waiting for the answer.
fn ping(c: &mut TcpStream) {
    c.write_all(b"p").unwrap();
    let mut one = [0u8; 1];
    c.read_exact(&mut one).unwrap();
}

fn client(proxy: &FaultProxy) -> TcpStream {
    let c = TcpStream::connect(proxy.addr()).unwrap();
    c.set_nodelay(true).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    c
}

/// On a known exchange (a ping answered by an echo at once), each ping a
/// client waits for is one exchange, whichever connection it is on, and
/// its delivered round trip is the setting, within a few milliseconds (the
/// proxy's threads wake late on a busy machine). Pings sent without
/// waiting for the answers are one exchange: the proxy counts round trips,
/// not messages.
#[test]
fn exchanges_are_counted_and_delivered_within_a_few_ms_of_the_setting() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    let rt = Duration::from_millis(20);
    proxy.set_round_trip(rt);
    let before = proxy.stats();
    let (mut a, mut b) = (client(&proxy), client(&proxy));
    for _ in 0..10 {
        ping(&mut a);
    }
    for _ in 0..5 {
        ping(&mut b);
    }
    let sequential = proxy.stats().since(&before);
    assert_eq!(sequential.connections, 2);
    assert_eq!(sequential.exchanges, 15);
    assert_eq!(sequential.buckets.iter().sum::<u64>(), 15);
    assert_eq!(
        (sequential.bytes_to_server, sequential.bytes_to_client),
        (15, 15)
    );
    let mean = sequential.mean_round_trip().unwrap();
    assert!(
        mean >= rt && mean <= rt + Duration::from_millis(5),
        "delivered {mean:?} with {rt:?} set"
    );

    // Three pings 1 ms apart, then their three echoes: one round trip.
    let before = proxy.stats();
    for _ in 0..3 {
        a.write_all(b"p").unwrap();
        thread::sleep(Duration::from_millis(1));
    }
    let mut three = [0u8; 3];
    a.read_exact(&mut three).unwrap();
    // The last echoes may still be on their way out of the proxy.
    thread::sleep(Duration::from_millis(50));
    let pipelined = proxy.stats().since(&before);
    assert_eq!((pipelined.exchanges, pipelined.bytes_to_client), (1, 3));
}

/// Both sockets of every proxied connection, the client's and the
/// target's, have TCP_NODELAY.
#[test]
fn both_sockets_of_a_connection_have_nodelay() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    let mut c = client(&proxy);
    ping(&mut c);
    let held = proxy
        .shared
        .sockets
        .lock()
        .unwrap()
        .iter()
        .map(|s| (s.peer_addr().unwrap(), s.nodelay().unwrap()))
        .collect::<Vec<_>>();
    assert_eq!(held.len(), 2, "{held:?}");
    assert!(
        held.iter()
            .any(|(peer, _)| *peer == c.local_addr().unwrap()),
        "{held:?}"
    );
    assert!(held.iter().all(|(_, nodelay)| *nodelay), "{held:?}");
}

/// The readings are served over HTTP as Prometheus text, with the
/// setting, the exchanges and their histogram.
#[test]
fn the_stats_are_served_over_http() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    proxy.set_round_trip(Duration::from_millis(2));
    let mut c = client(&proxy);
    for _ in 0..4 {
        ping(&mut c);
    }
    let stats_addr = proxy.serve_stats().unwrap();
    assert_eq!(proxy.serve_stats().unwrap(), stats_addr);
    let mut s = TcpStream::connect(stats_addr).unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: proxy\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    let value = |series: &str| -> f64 {
        answer
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{series} ")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {series} in\n{answer}"))
    };
    assert_eq!(value("proxy_exchanges_total"), 4.0);
    assert_eq!(value("proxy_delivered_round_trip_seconds_count"), 4.0);
    assert_eq!(
        value("proxy_delivered_round_trip_seconds_bucket{le=\"+Inf\"}"),
        4.0
    );
    assert_eq!(
        value("proxy_delivered_round_trip_seconds_bucket{le=\"0.001\"}"),
        0.0
    );
    assert_eq!(value("proxy_round_trip_setting_seconds"), 0.002);
    assert_eq!(value("proxy_connections_total"), 1.0);
    let sum = value("proxy_delivered_round_trip_seconds_sum");
    assert!((0.008..0.1).contains(&sum), "{sum}");
}

/// A client that never stops sending (a ping every 2 ms for 300 ms, 20 ms
/// away): an exchange is a round trip, not a message. Each burst is
/// answered by the first chunk the echo sent after the burst reached it,
/// so each exchange is delivered at the setting, not at the gap between a
/// ping and the echo of an earlier one; and there are about as many
/// exchanges as round trips fit in the time, far fewer than pings.
#[test]
fn a_pipelining_clients_exchanges_are_its_round_trips() {
    let proxy = FaultProxy::start(echo_server()).unwrap();
    let rt = Duration::from_millis(20);
    proxy.set_round_trip(rt);
    let mut c = client(&proxy);
    ping(&mut c);
    let before = proxy.stats();
    let mut reader = c.try_clone().unwrap();
    let echoes = thread::spawn(move || {
        let mut all = [0u8; 150];
        reader.read_exact(&mut all).map(|()| all.len())
    });
    for _ in 0..150 {
        c.write_all(b"p").unwrap();
        thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(echoes.join().unwrap().unwrap(), 150);
    thread::sleep(Duration::from_millis(50));
    let stats = proxy.stats().since(&before);
    let mean = stats.mean_round_trip().unwrap();
    assert!(
        mean >= rt && mean <= rt + Duration::from_millis(5),
        "delivered {mean:?} with {rt:?} set, over {} exchanges",
        stats.exchanges
    );
    assert!(
        (5..=25).contains(&stats.exchanges),
        "{} exchanges for 150 pings over about 300 ms, 20 ms away",
        stats.exchanges
    );
}
