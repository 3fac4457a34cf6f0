//! The socket as hyper reads it: [`ScannedIo`] hands hyper whole requests
//! only, each checked by the contract's rules on the way
//! (`contract::request_scan`: the head by the blocking server's parser, the
//! body followed by its framing to the next head), and at the first request
//! the contract refuses it hands hyper nothing more. hyper then finishes the
//! answers it has begun (its end of input waits until none is in flight)
//! and closes; crate::serve writes the contract's error answer for the
//! refused request on the socket, and closes it. So
//! every malformed request gets the blocking server's answer, first on its
//! connection or not, instead of hyper's bare 400 (or a request smuggled
//! past hyper's more lenient rules).
//!
//! The hot path copies nothing: the socket is read straight into hyper's
//! buffer, and when the bytes read are whole requests (a `/health`, a small
//! `/echo`) they stay there; the scan is one httparse pass over each head.
//! Only a request that is not all there yet is kept back, in a buffer of
//! its own, until it is whole: hyper, like the blocking server, then sees
//! each request with its whole body, so a body that breaks a rule, is cut
//! short by the client's close, or misses its deadline is refused before
//! any handler runs, as the blocking server refuses it.
//!
//! Writes go straight to the socket. The one write of its own: `100
//! Continue`, when a kept-back head asks for it and none of its body has
//! come (the blocking server's rule; hyper may send its own when the
//! handler reads the body, and clients skip both).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use contract::request_scan::{Refusal, RequestScanner};
use contract::ApiError;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

use crate::idle_timeout::Activity;

/// How much a read of a kept-back request asks for.
const READ_CHUNK: usize = 8 * 1024;
const CONTINUE: &[u8] = b"HTTP/1.1 100 Continue\r\n\r\n";

/// Why hyper is given no more input than it has.
#[derive(Debug)]
enum Ended {
    /// The client closed in the middle of a head: nothing to answer.
    Quietly,
    /// A request the contract refuses, and the time since its head was in
    /// (zero when its head was refused): answer it, then close.
    Refused(Refusal, Duration),
}

/// The deadline of a body that is arriving (`--body-read-timeout-ms`, from
/// the end of its head, as on the blocking server).
struct BodyTimer {
    /// The request's number (contract::request_scan).
    request: u64,
    head_at: Instant,
    deadline: Pin<Box<Sleep>>,
    continue_sent: bool,
}

/// A connection's socket, scanned: see the module's documentation.
pub(crate) struct ScannedIo {
    stream: TcpStream,
    scanner: RequestScanner,
    /// Bytes read and not yet given to hyper: `held[..released]` are whole
    /// requests waiting for room in hyper's buffer; the rest is the start
    /// of a request still arriving (or a refused one).
    held: Vec<u8>,
    released: usize,
    ended: Option<Ended>,
    body_timer: Option<BodyTimer>,
    body_timeout: Duration,
    /// The connection's requests, for its idle watch (crate::idle_timeout):
    /// a body arriving counts as a request in flight, timed by its own
    /// deadline here instead; and for the drain (crate::serve), which waits
    /// for such a request to reach hyper.
    activity: Arc<Activity>,
}

impl ScannedIo {
    pub(crate) fn new(stream: TcpStream, body_timeout: Duration, activity: Arc<Activity>) -> Self {
        ScannedIo {
            stream,
            scanner: RequestScanner::new(),
            held: Vec::new(),
            released: 0,
            ended: None,
            body_timer: None,
            body_timeout,
            activity,
        }
    }

    /// The refused request, once hyper has let go of the socket: its
    /// refusal, and the time since its head was in.
    pub(crate) fn take_refusal(&mut self) -> Option<(Refusal, Duration)> {
        match self.ended.take() {
            Some(Ended::Refused(refusal, elapsed)) => Some((refusal, elapsed)),
            other => {
                self.ended = other;
                None
            }
        }
    }

    /// Whether part of a request head is held (the client began a request
    /// and has not finished its head).
    pub(crate) fn holds_part_of_a_head(&self) -> bool {
        self.held.len() > self.released && self.scanner.body_in_progress().is_none()
    }

    /// The socket, for an answer written after hyper has let go of it.
    pub(crate) fn into_stream(self) -> TcpStream {
        self.stream
    }

    /// Reads the socket straight into hyper's buffer and leaves hyper the
    /// whole requests among the new bytes; keeps the rest. `true` when hyper
    /// got bytes, or the end of the input.
    fn read_into_hyper(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<bool>> {
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.stream).poll_read(cx, buf))?;
        let fresh = &buf.filled()[before..];
        if fresh.is_empty() {
            // The client closed between requests: hyper hears it at once,
            // as from the socket itself (and drops a request in flight as a
            // vanished client's, its 499).
            return Poll::Ready(Ok(true));
        }
        let scanned = self.scanner.scan(fresh);
        // The scanner counts from the start of what it is handed next: the
        // bytes kept back, or hyper's next read.
        self.scanner.consumed(scanned.whole);
        if scanned.whole == fresh.len() {
            // The hot path: only whole requests came, and they stay where
            // they were read.
            return Poll::Ready(Ok(true));
        }
        self.held.extend_from_slice(&fresh[scanned.whole..]);
        buf.set_filled(before + scanned.whole);
        self.after_scan(scanned.refused);
        Poll::Ready(Ok(scanned.whole > 0))
    }

    /// Reads more of the request that is kept back, until it is whole,
    /// refused, cut short, or past its body's deadline.
    fn read_held(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(timer) = &mut self.body_timer {
            if timer.deadline.as_mut().poll(cx).is_ready() {
                let refusal = self.scanner.refusal(&self.held, ApiError::body_timeout());
                self.end_with(Some(refusal));
                return Poll::Ready(Ok(()));
            }
        }
        let filled = self.held.len();
        self.held.resize(filled + READ_CHUNK, 0);
        let mut read = ReadBuf::new(&mut self.held[filled..]);
        let polled = Pin::new(&mut self.stream).poll_read(cx, &mut read);
        let n = read.filled().len();
        self.held.truncate(filled + n);
        ready!(polled)?;
        if n == 0 {
            let refusal = self.scanner.end_of_input(&self.held);
            self.end_with(refusal);
            return Poll::Ready(Ok(()));
        }
        let scanned = self.scanner.scan(&self.held);
        self.released = scanned.whole;
        self.after_scan(scanned.refused);
        Poll::Ready(Ok(()))
    }

    /// After a scan: the refusal, if any; else the body deadline of the
    /// request now arriving, and its `100 Continue`.
    fn after_scan(&mut self, refused: Option<Refusal>) {
        if refused.is_some() {
            self.end_with(refused);
            return;
        }
        let arriving = self.scanner.body_in_progress();
        if self.body_timer.as_ref().map(|timer| timer.request) != arriving {
            // The body timed so far is whole: no longer in flight for the
            // idle watch (hyper counts the request from here).
            if self.body_timer.take().is_some() {
                self.activity.body_ended();
            }
            if let Some(request) = arriving {
                self.activity.body_began();
                self.body_timer = Some(BodyTimer {
                    request,
                    head_at: Instant::now(),
                    deadline: Box::pin(tokio::time::sleep(self.body_timeout)),
                    continue_sent: false,
                });
            }
        }
        if let Some(timer) = &mut self.body_timer {
            if !timer.continue_sent && self.scanner.wants_continue() {
                timer.continue_sent = true;
                // A write that does not wait: a client that misses it
                // sends its body after its own wait (curl's is 1 s).
                let _ = self.stream.try_write(CONTINUE);
            }
        }
    }

    /// No more input for hyper: a refusal to answer, or a quiet end.
    fn end_with(&mut self, refusal: Option<Refusal>) {
        let elapsed = match self.body_timer.take() {
            Some(timer) => {
                self.activity.body_ended();
                timer.head_at.elapsed()
            }
            None => Duration::ZERO,
        };
        self.ended = Some(match refusal {
            Some(refusal) => Ended::Refused(refusal, elapsed),
            None => Ended::Quietly,
        });
    }
}

impl AsyncRead for ScannedIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        loop {
            if this.released > 0 {
                let n = this.released.min(buf.remaining());
                buf.put_slice(&this.held[..n]);
                this.held.drain(..n);
                this.scanner.consumed(n);
                this.released -= n;
                if this.held.is_empty() {
                    // An idle connection keeps no buffer of its own.
                    this.held = Vec::new();
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended.is_some() {
                // The end of the input, as hyper sees it: it closes
                // (crate::serve says what then). Not while it has a request
                // in flight, which it would drop as a vanished client's: it
                // waits, woken when that request is done.
                if this.activity.wake_when_none_in_flight(cx.waker()) {
                    return Poll::Pending;
                }
                return Poll::Ready(Ok(()));
            }
            if this.held.is_empty() {
                if ready!(this.read_into_hyper(cx, buf))? {
                    return Poll::Ready(Ok(()));
                }
            } else {
                ready!(this.read_held(cx))?;
            }
        }
    }
}

impl AsyncWrite for ScannedIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    // hyper writes a response's head and body with one vectored write when
    // the socket supports it; keep that.
    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    /// hyper's close. After a refused request the socket stays open: the
    /// refusal's answer is still to be written on it (crate::serve).
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if matches!(this.ended, Some(Ended::Refused(..))) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// What hyper would read from `sent`, written in `pieces`, and the
    /// refusal kept for the connection layer.
    async fn read_as_hyper(pieces: &[&[u8]]) -> (Vec<u8>, Option<(u16, String)>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let pieces: Vec<Vec<u8>> = pieces.iter().map(|p| p.to_vec()).collect();
        let client = tokio::spawn(async move {
            let mut c = TcpStream::connect(addr).await.unwrap();
            for piece in pieces {
                c.write_all(&piece).await.unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            c.shutdown().await.unwrap();
            // Keep the socket until the server has read it all.
            let mut rest = Vec::new();
            let _ = c.read_to_end(&mut rest).await;
        });
        let (server, _) = listener.accept().await.unwrap();
        let mut io = ScannedIo::new(server, Duration::from_secs(10), Activity::new());
        let mut got = Vec::new();
        io.read_to_end(&mut got).await.unwrap();
        let refusal = io
            .take_refusal()
            .map(|(r, _)| (r.error.status(), r.error.message));
        drop(io);
        client.await.unwrap();
        (got, refusal)
    }

    const GET: &[u8] = b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n";

    #[tokio::test]
    async fn whole_requests_pass_and_a_refused_one_does_not() {
        let bad = b"GET /health HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
        let sent = [GET, GET, &bad[..]].concat();
        let (got, refusal) = read_as_hyper(&[&sent[..]]).await;
        assert_eq!(got, [GET, GET].concat());
        assert_eq!(
            refusal,
            Some((400, "malformed request: content-length given twice".into()))
        );
    }

    #[tokio::test]
    async fn a_request_in_pieces_passes_only_once_whole() {
        let post = b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
        let (got, refusal) = read_as_hyper(&[&post[..10], &post[10..45], &post[45..], GET]).await;
        assert_eq!(got, [&post[..], GET].concat());
        assert_eq!(refusal, None);
    }

    /// hyper is told of the end of its input only once no request of its
    /// is in flight: earlier it would drop that request unanswered.
    #[tokio::test]
    async fn the_end_of_input_waits_for_the_request_in_flight() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        client.write_all(b"GET / HTTP/1.2\r\n\r\n").await.unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let activity = Activity::new();
        activity.began();
        let mut io = ScannedIo::new(server, Duration::from_secs(10), activity.clone());
        let reading = tokio::spawn(async move {
            let mut got = Vec::new();
            io.read_to_end(&mut got).await.map(|_| got)
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!reading.is_finished(), "ended with a request in flight");
        activity.finished();
        let got = tokio::time::timeout(Duration::from_secs(5), reading)
            .await
            .expect("still waiting once none was in flight")
            .unwrap()
            .unwrap();
        assert!(got.is_empty(), "{got:?}");
        drop(client);
    }

    #[tokio::test]
    async fn a_body_cut_short_is_refused() {
        let cut = b"POST /echo HTTP/1.1\r\nContent-Length: 9\r\n\r\nhello";
        let (got, refusal) = read_as_hyper(&[GET, &cut[..]]).await;
        assert_eq!(got, GET);
        assert_eq!(
            refusal,
            Some((400, "malformed request: body cut short".into()))
        );
    }
}
