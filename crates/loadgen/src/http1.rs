//! A lean HTTP/1.1 client connection: write prepared request bytes, read one
//! response head, skip the body by its framing (`Content-Length`, chunked,
//! or until close) and say whether the connection can carry the next
//! request; count the bytes both ways.
//!
//! Why not hyper's client: the load generator must cost less CPU per request
//! than the server it measures, on the same two cores. This path does one
//! `write` and usually one `read` per request, allocates nothing per request
//! once the buffer exists, and never copies the body.
//!
//! The rules of an answer (where its head ends, how its body ends, chunked
//! framing) are the workspace's one reader's, `net_tools::http_answer`,
//! which does no I/O of its own. The I/O loop stays here, not in that
//! reader's blocking loop: this one is async (tokio), reads into one buffer
//! reused for the connection's life, and drops the body where that one keeps
//! it, a copy and an allocation per request the hot path must not pay.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use net_tools::http_answer::{parse_head, ChunkedBody, Framing, Head, Malformed, Progress};

/// Start size of the read buffer; enough for a typical head and small body.
const INITIAL_BUFFER: usize = 16 * 1024;
/// A response head larger than this is treated as malformed.
const MAX_HEAD: usize = 64 * 1024;

/// Why reading a response failed.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The peer closed before sending a single byte of the response. On a
    /// reused keep-alive connection this means the server dropped it while it
    /// was idle, and the request may be retried on a fresh connection.
    ClosedBeforeResponse,
    /// The socket failed, or closed in the middle of a response.
    Io(io::Error),
    /// The bytes were not a valid HTTP/1.x response.
    Malformed,
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// What the caller needs to know about a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ResponseInfo {
    pub(crate) status: u16,
    /// False when the server asked to close, or the body ran until close.
    pub(crate) reusable: bool,
}

/// One client connection: a TCP socket, or bytes in memory for the fuzz
/// targets (crate::fuzzing).
pub(crate) struct Connection<S = TcpStream> {
    stream: S,
    buf: Vec<u8>,
    /// Bytes of `buf` holding data not yet consumed (always from index 0).
    filled: usize,
    /// Requests already completed on this connection.
    pub(crate) completed: u64,
    /// Bytes written and read since the last [`Connection::take_transferred`].
    sent: u64,
    received: u64,
}

impl Connection {
    /// Opens a TCP connection with Nagle's algorithm off: requests are
    /// written in one piece and must not wait for an ACK.
    pub(crate) async fn connect(addr: SocketAddr) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection::over(stream))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    /// A connection over `stream`, already open.
    pub(crate) fn over(stream: S) -> Connection<S> {
        Connection {
            stream,
            buf: vec![0; INITIAL_BUFFER],
            filled: 0,
            completed: 0,
            sent: 0,
            received: 0,
        }
    }

    /// Writes a whole request.
    pub(crate) async fn send(&mut self, request: &[u8]) -> io::Result<()> {
        self.stream.write_all(request).await?;
        self.sent += request.len() as u64;
        Ok(())
    }

    /// The bytes written and read since the last call: (sent, received).
    pub(crate) fn take_transferred(&mut self) -> (u64, u64) {
        let moved = (self.sent, self.received);
        (self.sent, self.received) = (0, 0);
        moved
    }

    /// One `read` into `buf[from..to]`, counted.
    async fn read_into(&mut self, from: usize, to: usize) -> io::Result<usize> {
        let n = self.stream.read(&mut self.buf[from..to]).await?;
        self.received += n as u64;
        Ok(n)
    }

    /// Reads one response to the end of its body.
    pub(crate) async fn read_response(&mut self, no_body: bool) -> Result<ResponseInfo, ReadError> {
        loop {
            let head = self.read_head(no_body).await?;
            self.consume(head.len);
            if head.is_interim() {
                // An interim response (e.g. 100 Continue): the real one follows.
                continue;
            }
            match head.framing {
                Framing::Length(len) => self.skip_length(len).await?,
                Framing::Chunked => self.skip_chunked().await?,
                Framing::UntilClose => self.skip_until_close().await?,
            }
            self.completed += 1;
            return Ok(ResponseInfo {
                status: head.status,
                // A body that ran until close leaves nothing to reuse.
                reusable: head.keep_alive,
            });
        }
    }

    /// Reads until a full head is buffered; returns it (its length, status,
    /// body framing and whether the server allows keep-alive).
    async fn read_head(&mut self, no_body: bool) -> Result<Head, ReadError> {
        loop {
            if self.filled > 0 {
                // Headers are not kept: only the framing and keep-alive matter here.
                match parse_head(&self.buf[..self.filled], no_body, |_, _| {}) {
                    Ok(Some(head)) => return Ok(head),
                    Ok(None) => {}
                    Err(Malformed) => return Err(ReadError::Malformed),
                }
            }
            if self.filled == self.buf.len() {
                if self.buf.len() >= MAX_HEAD {
                    return Err(ReadError::Malformed);
                }
                self.buf.resize(self.buf.len() * 2, 0);
            }
            let n = self.read_into(self.filled, self.buf.len()).await?;
            if n == 0 {
                return Err(if self.filled == 0 {
                    ReadError::ClosedBeforeResponse
                } else {
                    ReadError::Io(io::ErrorKind::UnexpectedEof.into())
                });
            }
            self.filled += n;
        }
    }

    async fn skip_length(&mut self, len: u64) -> Result<(), ReadError> {
        let mut left = len;
        loop {
            let take = usize::try_from(left).unwrap_or(usize::MAX).min(self.filled);
            self.consume(take);
            left -= take as u64;
            if left == 0 {
                return Ok(());
            }
            self.fill_more().await?;
        }
    }

    async fn skip_chunked(&mut self) -> Result<(), ReadError> {
        let mut chunked = ChunkedBody::default();
        loop {
            // The data is dropped: only where the body ends matters here.
            match chunked
                .feed(&self.buf[..self.filled], |_| {})
                .map_err(|_| ReadError::Malformed)?
            {
                Progress::Done(used) => {
                    self.consume(used);
                    return Ok(());
                }
                Progress::NeedMore => {
                    self.filled = 0;
                    self.fill_more().await?;
                }
            }
        }
    }

    async fn skip_until_close(&mut self) -> Result<(), ReadError> {
        self.filled = 0;
        loop {
            let n = self.read_into(0, self.buf.len()).await?;
            if n == 0 {
                return Ok(());
            }
        }
    }

    /// Reads more bytes after the buffered ones; a close here is an error
    /// because a response is in progress.
    async fn fill_more(&mut self) -> Result<(), ReadError> {
        if self.filled == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = self.read_into(self.filled, self.buf.len()).await?;
        if n == 0 {
            return Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into()));
        }
        self.filled += n;
        Ok(())
    }

    /// Drops the first `n` buffered bytes, keeping any that follow (the
    /// start of a next response, which a well-behaved server never sends
    /// early, but which must not be lost if it does).
    fn consume(&mut self, n: usize) {
        if n >= self.filled {
            self.filled = 0;
        } else {
            self.buf.copy_within(n..self.filled, 0);
            self.filled -= n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// Serves `script` (raw bytes) to the first connection, then closes.
    async fn serve_raw(script: &'static [u8]) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        tokio::spawn(async move {
            if let Ok((mut socket, _)) = listener.accept().await {
                let mut scratch = [0u8; 1024];
                let _ = socket.read(&mut scratch).await;
                // Dribble the bytes out in small pieces to exercise partial reads.
                for piece in script.chunks(7) {
                    if socket.write_all(piece).await.is_err() {
                        return;
                    }
                    socket.flush().await.ok();
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                }
            }
        });
        addr
    }

    /// A connection to a server that answers with `script`, a GET sent on it.
    async fn asking(script: &'static [u8]) -> Connection {
        let addr = serve_raw(script).await;
        let mut conn = Connection::connect(addr).await.expect("connect");
        conn.send(b"GET / HTTP/1.1\r\n\r\n").await.expect("send");
        conn
    }

    /// The answer `conn` reads next: its status and whether the connection
    /// is reusable after it.
    async fn next_answer(conn: &mut Connection, what: &str) -> (u16, bool) {
        let info = conn.read_response(false).await.expect(what);
        (info.status, info.reusable)
    }

    #[tokio::test]
    async fn reads_back_to_back_responses_of_each_framing() {
        let mut conn = asking(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\
HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n\
HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        )
        .await;
        assert_eq!(next_answer(&mut conn, "first").await, (200, true));
        assert_eq!(next_answer(&mut conn, "second").await, (404, true));
        assert_eq!(next_answer(&mut conn, "third").await, (500, false));
        assert!(matches!(
            conn.read_response(false).await,
            Err(ReadError::ClosedBeforeResponse)
        ));
        // 18 bytes sent; every byte of the three answers read, none twice.
        let answers = 43 + 67 + 59;
        assert_eq!(conn.take_transferred(), (18, answers));
        assert_eq!(conn.take_transferred(), (0, 0));
    }

    #[tokio::test]
    async fn a_body_without_length_runs_until_close() {
        let mut conn = asking(b"HTTP/1.0 200 OK\r\n\r\nall of this is body").await;
        assert_eq!(next_answer(&mut conn, "response").await, (200, false));
    }

    #[tokio::test]
    async fn garbage_is_malformed_and_truncation_is_an_io_error() {
        let mut conn = asking(b"SMTP ready\r\n\r\n").await;
        assert!(matches!(
            conn.read_response(false).await,
            Err(ReadError::Malformed)
        ));

        let mut conn = asking(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort").await;
        assert!(matches!(
            conn.read_response(false).await,
            Err(ReadError::Io(_))
        ));
    }
}
