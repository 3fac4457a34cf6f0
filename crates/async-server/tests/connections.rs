//! The connection layer: a client that sends its head too slowly is cut off
//! by the header read timeout without slowing anyone else, keep-alive
//! connections serve several requests, and an idle keep-alive connection is
//! closed at shutdown instead of holding the drain open.

mod common;

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::{timed_get, TestServer};

/// Reads one answer off a keep-alive connection (headers, then Content-Length bytes).
fn read_one_answer(stream: &mut TcpStream) -> std::io::Result<(u16, String)> {
    let mut bytes = Vec::new();
    let mut byte = [0u8; 1];
    while !bytes.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&bytes).to_string();
    let status = head[9..12].parse().unwrap_or(0);
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok((status, String::from_utf8_lossy(&body).to_string()))
}

/// True when the server closed the connection within `within`.
fn closed_by_server(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => matches!(
            e.kind(),
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
        ),
    }
}

/// Everything the server sends until it closes, waiting at most `within`.
fn read_until_closed(stream: &mut TcpStream, within: Duration) -> std::io::Result<String> {
    stream.set_read_timeout(Some(within))?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[test]
fn slow_clients_get_408_and_do_not_hold_up_others() {
    let server = TestServer::start(&["--header-read-timeout-ms", "500"]);
    let mut slow: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            s.write_all(b"GET /health HTTP/1.1\r\nHo").unwrap();
            s
        })
        .collect();

    // Others are served normally meanwhile.
    for _ in 0..5 {
        let (answer, took) = timed_get(server.addr, "/health");
        assert_eq!(answer.status, 200);
        assert!(
            took < Duration::from_millis(500),
            "/health took {took:?} among slow clients"
        );
    }

    // Each slow client gets the contract's 408 soon after the header read
    // timeout, and the connection is closed.
    let started = Instant::now();
    for s in &mut slow {
        let answer =
            read_until_closed(s, Duration::from_secs(5)).expect("a slow client was not cut off");
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
        assert!(
            answer.ends_with(r#"{"error":"request head not received in time"}"#),
            "{answer}"
        );
    }
    assert!(started.elapsed() < Duration::from_secs(5));

    // An idle keep-alive connection is closed quietly after the same timeout.
    let mut idle = TcpStream::connect(server.addr).unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        .unwrap();
    idle.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(read_one_answer(&mut idle).unwrap().0, 200);
    assert_eq!(
        read_until_closed(&mut idle, Duration::from_secs(5)).unwrap(),
        ""
    );
}

#[test]
fn keep_alive_serves_several_requests_and_idle_connections_close_at_shutdown() {
    let mut server = TestServer::start(&[]);
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    for _ in 0..3 {
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        let (status, body) = read_one_answer(&mut stream).unwrap();
        assert_eq!((status, body.as_str()), (200, r#"{"health":"ok"}"#));
    }

    // The connection is idle now; shutdown must close it, not wait the
    // 10 s drain timeout for it.
    let stopping = Instant::now();
    server.trigger_shutdown();
    assert!(
        closed_by_server(&mut stream, Duration::from_secs(5)),
        "idle keep-alive connection left open"
    );
    server.join().expect("run returns Ok");
    assert!(
        stopping.elapsed() < Duration::from_secs(3),
        "drain took {:?}",
        stopping.elapsed()
    );
}
