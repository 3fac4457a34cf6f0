//! One DevTools WebSocket: commands sent one at a time, each answered by
//! the next message carrying its id; every event read while waiting is kept,
//! in arrival order, so a test can ask afterwards what the page did.

use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use serde_json::{json, Value};
use tungstenite::protocol::WebSocketConfig;
use tungstenite::{Message, WebSocket};

use super::WAIT;

/// A DevTools endpoint (the browser's or one page's) over a blocking socket.
pub(super) struct Connection {
    ws: WebSocket<TcpStream>,
    next_id: u64,
    /// Every event received so far (`{"method": ..., "params": ...}`).
    pub(super) events: Vec<Value>,
}

impl Connection {
    /// Opens `ws://127.0.0.1:{port}{path}`.
    pub(super) fn open(port: u16, path: &str) -> Connection {
        let url = format!("ws://127.0.0.1:{port}{path}");
        let stream = TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], port)), WAIT)
            .unwrap_or_else(|e| panic!("connecting to chromium's devtools at {url}: {e}"));
        stream
            .set_write_timeout(Some(WAIT))
            .expect("setting the devtools socket's write timeout");
        // A full-page screenshot arrives as one base64 text frame of several
        // megabytes; tungstenite's 16 MiB frame limit would cut a long report.
        let config = WebSocketConfig::default()
            .max_message_size(Some(256 << 20))
            .max_frame_size(Some(256 << 20));
        let (ws, _) = tungstenite::client::client_with_config(url.as_str(), stream, Some(config))
            .unwrap_or_else(|e| panic!("websocket handshake with {url}: {e}"));
        Connection {
            ws,
            next_id: 0,
            events: Vec::new(),
        }
    }

    /// Sends `method` and returns its `result`; panics on a protocol error.
    pub(super) fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let text = json!({ "id": id, "method": method, "params": params }).to_string();
        self.ws
            .send(Message::text(text))
            .unwrap_or_else(|e| panic!("sending {method} to chromium: {e}"));
        let deadline = Instant::now() + WAIT;
        loop {
            let message = self.next_message(deadline, &format!("chromium's answer to {method}"));
            if message["id"] == id {
                if let Some(error) = message.get("error") {
                    panic!("chromium refused {method}: {error}");
                }
                return message["result"].clone();
            }
            self.events.push(message);
        }
    }

    /// The first event named `method` at index `since` or later of
    /// [`Connection::events`], reading on until it arrives.
    pub(super) fn wait_for_event(&mut self, method: &str, since: usize) -> Value {
        let deadline = Instant::now() + WAIT;
        let mut seen = since;
        loop {
            if let Some(event) = self.events[seen..].iter().find(|e| e["method"] == method) {
                return event.clone();
            }
            seen = self.events.len();
            let message = self.next_message(deadline, &format!("chromium's {method} event"));
            self.events.push(message);
        }
    }

    /// The next JSON message, or a panic naming `what` at the deadline.
    fn next_message(&mut self, deadline: Instant, what: &str) -> Value {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out after {WAIT:?} waiting for {what}"
            );
            // The socket's read timeout is the time left, so a silent
            // Chromium ends in the assert above, not in a hang.
            self.ws
                .get_mut()
                .set_read_timeout(Some(left))
                .expect("setting the devtools socket's read timeout");
            match self.ws.read() {
                Ok(Message::Text(text)) => {
                    return serde_json::from_str(text.as_str()).unwrap_or_else(|e| {
                        panic!("chromium sent a message that is not JSON ({e}): {text}")
                    })
                }
                Ok(Message::Close(frame)) => {
                    panic!("chromium closed devtools ({frame:?}) while we waited for {what}")
                }
                Ok(_) => {} // pings (tungstenite answers them) and binary frames: not CDP
                // A timeout leaves tungstenite's partial frame buffered; the
                // next read resumes it.
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(e) => panic!("reading from chromium's devtools while waiting for {what}: {e}"),
            }
        }
    }
}
