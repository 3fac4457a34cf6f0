//! A socket with some of its input already read: [`PrefixedIo`] gives hyper
//! the bytes the connection layer read first (the first request head, see
//! [`crate::first_head`]), then reads the socket itself.
//!
//! Writes go straight to the socket. Once the prefix is used up its buffer is
//! freed, so an idle keep-alive connection does not keep it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// `prefix[consumed..]` comes first, then `stream`.
pub(crate) struct PrefixedIo {
    prefix: Vec<u8>,
    consumed: usize,
    stream: TcpStream,
}

impl PrefixedIo {
    pub(crate) fn new(prefix: Vec<u8>, stream: TcpStream) -> Self {
        Self {
            prefix,
            consumed: 0,
            stream,
        }
    }

    /// The socket, for an answer written after hyper has let go of it. Any
    /// prefix left unread is dropped with the wrapper.
    pub(crate) fn into_stream(self) -> TcpStream {
        self.stream
    }
}

impl AsyncRead for PrefixedIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.consumed < this.prefix.len() {
            let left = &this.prefix[this.consumed..];
            let n = left.len().min(buf.remaining());
            buf.put_slice(&left[..n]);
            this.consumed += n;
            if this.consumed == this.prefix.len() {
                this.prefix = Vec::new();
                this.consumed = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for PrefixedIo {
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

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[tokio::test]
    async fn the_prefix_comes_first_then_the_socket() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move {
            let mut c = TcpStream::connect(addr).await.unwrap();
            c.write_all(b" world").await.unwrap();
        });
        let (server, _) = listener.accept().await.unwrap();
        client.await.unwrap();
        let mut io = PrefixedIo::new(b"hello".to_vec(), server);
        let mut got = Vec::new();
        io.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"hello world");
    }
}
