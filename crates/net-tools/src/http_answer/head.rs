//! An answer's head, parsed where it lies in a buffer (httparse): the
//! status, how its body ends, and whether the connection carries another
//! request. Each header is handed to the caller, who keeps what it needs
//! (the harness keeps them all, loadgen none), so nothing is allocated here.

/// Headers httparse may parse per answer; more is a malformed answer.
const MAX_HEADERS: usize = 64;

/// The bytes are not an HTTP/1.x answer (or a header we rely on is bad).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a valid HTTP/1.x answer")
    }
}

impl std::error::Error for Malformed {}

impl From<Malformed> for std::io::Error {
    fn from(e: Malformed) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidData, e)
    }
}

/// How the body's end is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Exactly this many bytes (0 for a bodyless answer).
    Length(u64),
    /// `Transfer-Encoding: chunked` ([`crate::http_answer::ChunkedBody`]).
    Chunked,
    /// No length: the body runs until the server closes.
    UntilClose,
}

/// A complete head at the start of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// Its length in bytes, the blank line included: the body starts here.
    pub len: usize,
    pub status: u16,
    pub framing: Framing,
    /// The server allows another request on the connection (HTTP/1.1 and no
    /// `Connection: close`, or HTTP/1.0 with `keep-alive`).
    pub keep_alive: bool,
}

impl Head {
    /// An interim answer (`100 Continue`...): the real one follows it.
    pub fn is_interim(&self) -> bool {
        (100..200).contains(&self.status) && self.status != 101
    }
}

/// Parses the head at the start of `buf`: `Ok(None)` while it is
/// incomplete. `bodyless_request`: the request was a `HEAD`, so the answer
/// has no body whatever its headers say. Each header is passed to
/// `on_header` (name, raw value).
pub fn parse_head(
    buf: &[u8],
    bodyless_request: bool,
    mut on_header: impl FnMut(&str, &[u8]),
) -> Result<Option<Head>, Malformed> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let len = match response.parse(buf) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(Malformed),
    };
    let status = response.code.ok_or(Malformed)?;
    let mut content_length = None;
    let mut chunked = false;
    let mut close = response.version == Some(0);
    for header in response.headers.iter() {
        on_header(header.name, header.value);
        if header.name.eq_ignore_ascii_case("content-length") {
            let length = std::str::from_utf8(header.value)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or(Malformed)?;
            content_length = Some(length);
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = contains_token(header.value, b"chunked");
        } else if header.name.eq_ignore_ascii_case("connection") {
            if contains_token(header.value, b"close") {
                close = true;
            } else if contains_token(header.value, b"keep-alive") {
                close = false;
            }
        }
    }
    // RFC 9112 6.3: these never have a body, whatever their headers say.
    let bodyless =
        bodyless_request || status == 204 || status == 304 || (100..200).contains(&status);
    let framing = if bodyless {
        Framing::Length(0)
    } else if chunked {
        Framing::Chunked
    } else if let Some(length) = content_length {
        Framing::Length(length)
    } else {
        Framing::UntilClose
    };
    Ok(Some(Head {
        len,
        status,
        framing,
        keep_alive: !close && framing != Framing::UntilClose,
    }))
}

fn contains_token(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|&b| b == b',')
        .any(|part| part.trim_ascii().eq_ignore_ascii_case(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(raw: &[u8]) -> Result<Option<Head>, Malformed> {
        parse_head(raw, false, |_, _| {})
    }

    #[test]
    fn each_framing_and_keep_alive_is_read_from_the_headers() {
        let cases: &[(&[u8], u16, Framing, bool)] = &[
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
                200,
                Framing::Length(5),
                true,
            ),
            (
                b"HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n",
                404,
                Framing::Chunked,
                true,
            ),
            (
                b"HTTP/1.1 500 Oops\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                500,
                Framing::Length(0),
                false,
            ),
            (
                b"HTTP/1.0 200 OK\r\n\r\nall of this is body",
                200,
                Framing::UntilClose,
                false,
            ),
            (
                b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
                200,
                Framing::Length(2),
                true,
            ),
            (
                b"HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n",
                204,
                Framing::Length(0),
                true,
            ),
            (
                b"HTTP/1.1 100 Continue\r\n\r\n",
                100,
                Framing::Length(0),
                true,
            ),
        ];
        for &(raw, status, framing, keep_alive) in cases {
            let got = head(raw).unwrap().unwrap();
            assert_eq!(
                (got.status, got.framing, got.keep_alive),
                (status, framing, keep_alive),
                "{}",
                String::from_utf8_lossy(raw)
            );
            assert_eq!(&raw[got.len - 4..got.len], b"\r\n\r\n");
        }
    }

    #[test]
    fn a_head_request_has_no_body_and_headers_reach_the_caller() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n";
        let mut seen = Vec::new();
        let got = parse_head(raw, true, |n, v| seen.push((n.to_owned(), v.to_vec())))
            .unwrap()
            .unwrap();
        assert_eq!(got.framing, Framing::Length(0));
        assert_eq!(seen[0], ("Content-Type".to_owned(), b"text/plain".to_vec()));
    }

    #[test]
    fn an_incomplete_head_waits_and_garbage_is_malformed() {
        assert_eq!(head(b"HTTP/1.1 200 OK\r\nContent-Le"), Ok(None));
        assert_eq!(head(b"SMTP ready\r\n\r\n"), Err(Malformed));
        assert_eq!(
            head(b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n"),
            Err(Malformed)
        );
    }
}
