//! The differential target: the same bytes to the servers' head parser
//! (`contract::head::parse_head`, which the blocking server runs on every
//! head and the async server on a connection's first) and to httparse as
//! hyper calls it (100 header slots, hyper's default; hyper then answers
//! 431 for more, as the contract does). Both must agree on accept, wait
//! for more, or refuse, and where both accept, on the head: method, target,
//! version, every header, where the head ends, and the body's framing.
//!
//! Where the contract is stricter on purpose, the rule is written out here
//! ([`Rule`]), from RFC 9112 and the contract's documentation, not copied
//! from its code: a head httparse accepts is refused when one of them
//! applies, with the status that rule names, and a divergence no rule
//! explains fails the target.

use contract::framing::BodyFraming;
use contract::head::{header_slots, parse_head, MAX_HEADERS};
use contract::params::{MAX_BODY_BYTES, MAX_HEADER_BYTES};

/// A head as a parser read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub method: String,
    pub target: String,
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version: u8,
    pub headers: Vec<(String, Vec<u8>)>,
    /// Where the head ends.
    pub len: usize,
    pub framing: BodyFraming,
}

/// What a parser decides about the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The head is not complete yet.
    NeedMore,
    Accept(Head),
    /// Answered with this status.
    Refuse(u16),
}

/// httparse's own answer.
#[derive(Debug)]
pub enum Httparse {
    Partial,
    Complete(Head),
    Error(httparse::Error),
}

/// Why the contract's verdict is what it is, given httparse's answer: the
/// same as httparse's, or one of the contract's documented refusals, in the
/// order the contract applies them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// httparse decides: a complete head is accepted, a partial one waits,
    /// a syntax error is 400 and more than [`MAX_HEADERS`] fields 431 (as
    /// hyper answers both).
    Httparse,
    /// 431: a head not complete within its first [`MAX_HEADER_BYTES`],
    /// whatever follows them, a syntax error included (hyper's own limit
    /// is far larger).
    HeadTooLarge,
    /// 400: a request target that is not one a server takes (RFC 9112
    /// 3.2): origin-form (`/` then URI characters), `*`, or absolute-form
    /// with an http(s) scheme, a plain host and an optional port. URI
    /// characters are RFC 3986's unreserved, reserved and `%`, without
    /// `#` (a request carries no fragment); httparse takes any visible
    /// byte and bytes over 0x7F.
    TargetNotUri,
    /// 400: a header value that is not UTF-8 (httparse and hyper take
    /// obs-text bytes 0x80-0xFF as they come).
    ValueNotUtf8,
    /// 400: a `Content-Length` that is not 1*DIGIT once its optional
    /// whitespace (SP, HTAB) is trimmed, or too large to count
    /// (RFC 9112 6.3: a server must refuse an invalid one).
    ContentLengthInvalid,
    /// 400: `Content-Length` given twice with different values (the
    /// same value repeated is one length, RFC 9110 8.6).
    ContentLengthTwice,
    /// 400: both `Transfer-Encoding` and `Content-Length` (RFC 9112 6.3
    /// lets a server refuse them, as a smuggling attempt; hyper lets the
    /// transfer coding win).
    BothFramings,
    /// 400: a transfer coding whose last element is not `chunked`
    /// (RFC 9112 6.3). The last element of the list as sent: an empty
    /// one (`chunked,`) is not `chunked`, stricter than the list rule of
    /// RFC 9110 5.6.1, which would skip it.
    NotChunked,
    /// 400: `Transfer-Encoding` in an HTTP/1.0 request (RFC 9112 6.1).
    TransferEncodingInHttp10,
    /// 413: a declared length over [`MAX_BODY_BYTES`], refused before a
    /// byte of the body is read.
    BodyTooLarge,
}

/// httparse's answer for `buf`, with hyper's number of header slots.
pub fn httparse_answer(buf: &[u8]) -> Httparse {
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut slots);
    match request.parse(buf) {
        Ok(httparse::Status::Partial) => Httparse::Partial,
        Err(e) => Httparse::Error(e),
        Ok(httparse::Status::Complete(len)) => {
            let headers: Vec<(String, Vec<u8>)> = request
                .headers
                .iter()
                .map(|h| (h.name.to_owned(), h.value.to_vec()))
                .collect();
            Httparse::Complete(Head {
                method: request.method.unwrap_or_default().to_owned(),
                target: request.path.unwrap_or_default().to_owned(),
                version: request.version.unwrap_or_default(),
                framing: BodyFraming::None,
                headers,
                len,
            })
        }
    }
}

/// The servers' verdict: `contract::head::parse_head`.
pub fn server_verdict(buf: &[u8]) -> Verdict {
    let mut slots = header_slots();
    match parse_head(buf, &mut slots) {
        Ok(None) => Verdict::NeedMore,
        Err(error) => Verdict::Refuse(error.status()),
        Ok(Some(head)) => Verdict::Accept(Head {
            method: head.method.to_owned(),
            target: head.target.to_owned(),
            version: if head.http10 { 0 } else { 1 },
            headers: head
                .headers
                .iter()
                .map(|h| (h.name.to_owned(), h.value.to_vec()))
                .collect(),
            len: head.len,
            framing: head.framing,
        }),
    }
}

/// What the contract must answer for `buf`, given httparse's answer, and
/// the rule that decides it.
pub fn expected(buf: &[u8], answer: &Httparse) -> (Verdict, Rule) {
    if let Some(limit) = buf.get(..MAX_HEADER_BYTES) {
        if matches!(httparse_answer(limit), Httparse::Partial) {
            return (Verdict::Refuse(431), Rule::HeadTooLarge);
        }
    }
    match answer {
        Httparse::Partial => (Verdict::NeedMore, Rule::Httparse),
        Httparse::Error(httparse::Error::TooManyHeaders) => (Verdict::Refuse(431), Rule::Httparse),
        Httparse::Error(_) => (Verdict::Refuse(400), Rule::Httparse),
        Httparse::Complete(head) => {
            if !takes_target(head.target.as_bytes()) {
                return (Verdict::Refuse(400), Rule::TargetNotUri);
            }
            if head
                .headers
                .iter()
                .any(|(_, value)| std::str::from_utf8(value).is_err())
            {
                return (Verdict::Refuse(400), Rule::ValueNotUtf8);
            }
            match framing(&head.headers, head.version == 0) {
                Ok(framing) => (
                    Verdict::Accept(Head {
                        framing,
                        ..head.clone()
                    }),
                    Rule::Httparse,
                ),
                Err(rule @ Rule::BodyTooLarge) => (Verdict::Refuse(413), rule),
                Err(rule) => (Verdict::Refuse(400), rule),
            }
        }
    }
}

/// Whether a server takes this request target ([`Rule::TargetNotUri`]),
/// from RFC 3986's grammar, byte class by byte class.
fn takes_target(target: &[u8]) -> bool {
    const GEN_DELIMS: &[u8] = b":/?[]@"; // RFC 3986 2.2, less "#"
    const SUB_DELIMS: &[u8] = b"!$&'()*+,;=";
    const UNRESERVED_MARKS: &[u8] = b"-._~";
    let uri_byte = |b: &u8| {
        b.is_ascii_alphanumeric()
            || GEN_DELIMS.contains(b)
            || SUB_DELIMS.contains(b)
            || UNRESERVED_MARKS.contains(b)
            || *b == b'%'
    };
    if !target.iter().all(uri_byte) {
        return false;
    }
    if target == b"*" || target.first() == Some(&b'/') {
        return true;
    }
    // absolute-URI = scheme "://" host [":" port] [path-abempty] ["?" query]
    let lower = target.to_ascii_lowercase();
    let rest = if let Some(rest) = lower.strip_prefix(b"http://") {
        rest
    } else if let Some(rest) = lower.strip_prefix(b"https://") {
        rest
    } else {
        return false;
    };
    let authority_len = rest
        .iter()
        .position(|b| *b == b'/' || *b == b'?')
        .unwrap_or(rest.len());
    let mut parts = rest[..authority_len].splitn(2, |b| *b == b':');
    let host = parts.next().unwrap_or_default();
    let port = parts.next();
    let host_ok = !host.is_empty()
        && host
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'.');
    let port_ok = match port {
        None => true,
        Some(port) => (1..=5).contains(&port.len()) && port.iter().all(u8::is_ascii_digit),
    };
    host_ok && port_ok
}

/// The body's framing from the header fields (RFC 9112 6), or the rule
/// that refuses them.
fn framing(headers: &[(String, Vec<u8>)], http10: bool) -> Result<BodyFraming, Rule> {
    let named = |name: &'static str| {
        headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, value)| trim_ows(value))
    };
    let mut length: Option<usize> = None;
    for value in named("content-length") {
        if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
            return Err(Rule::ContentLengthInvalid);
        }
        // Digits that do not fit are a length nobody can send.
        let n = value.iter().try_fold(0usize, |n, digit| {
            n.checked_mul(10)?.checked_add(usize::from(digit - b'0'))
        });
        let n = n.ok_or(Rule::ContentLengthInvalid)?;
        if length.is_some_and(|seen| seen != n) {
            return Err(Rule::ContentLengthTwice);
        }
        length = Some(n);
    }
    // Several fields are one list (RFC 9110 5.3): its last element counts.
    let last_coding = named("transfer-encoding")
        .next_back()
        .map(|value| trim_ows(value.rsplit(|b| *b == b',').next().unwrap_or(value)));
    match (last_coding, length) {
        (Some(_), Some(_)) => Err(Rule::BothFramings),
        (Some(coding), None) if !coding.eq_ignore_ascii_case(b"chunked") => Err(Rule::NotChunked),
        (Some(_), None) if http10 => Err(Rule::TransferEncodingInHttp10),
        (Some(_), None) => Ok(BodyFraming::Chunked),
        (None, Some(n)) if n > MAX_BODY_BYTES => Err(Rule::BodyTooLarge),
        (None, Some(0) | None) => Ok(BodyFraming::None),
        (None, Some(n)) => Ok(BodyFraming::Length(n)),
    }
}

/// `value` without optional whitespace (RFC 9110 5.6.3: SP and HTAB) at
/// either end.
fn trim_ows(value: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = value.iter().position(|b| !is_ows(b)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    &value[start..end]
}

/// The target: panics, naming the rule, when the servers' parser and
/// httparse disagree in a way no rule explains.
pub fn check(buf: &[u8]) {
    let answer = httparse_answer(buf);
    let (want, rule) = expected(buf, &answer);
    let got = server_verdict(buf);
    assert_eq!(
        got,
        want,
        "the head parser and httparse ({answer:?}) disagree beyond the rule {rule:?} on {:?}",
        String::from_utf8_lossy(buf)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A head httparse accepts and the contract refuses: two different
    /// lengths. The rule decides, and the target agrees with it.
    #[test]
    fn a_length_given_twice_is_refused_by_its_rule_where_httparse_accepts() {
        let raw = b"POST /echo HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n";
        assert!(matches!(httparse_answer(raw), Httparse::Complete(_)));
        assert_eq!(server_verdict(raw), Verdict::Refuse(400));
        assert_eq!(
            expected(raw, &httparse_answer(raw)),
            (Verdict::Refuse(400), Rule::ContentLengthTwice)
        );
        check(raw);
    }

    #[test]
    fn each_stricter_rule_names_its_divergence() {
        let cases: [(&[u8], Rule, u16); 8] = [
            (b"GET /<x> HTTP/1.1\r\n\r\n", Rule::TargetNotUri, 400),
            (
                b"GET http://h:8080/health?x HTTP/1.1\r\n\r\n",
                Rule::Httparse,
                0,
            ),
            (
                b"GET / HTTP/1.1\r\nX: caf\xe9\r\n\r\n",
                Rule::ValueNotUtf8,
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n",
                Rule::ContentLengthInvalid,
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                Rule::BothFramings,
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
                Rule::NotChunked,
                400,
            ),
            (
                b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
                Rule::TransferEncodingInHttp10,
                400,
            ),
            (
                b"POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n",
                Rule::BodyTooLarge,
                413,
            ),
        ];
        for (raw, rule, status) in cases {
            let answer = httparse_answer(raw);
            assert!(matches!(answer, Httparse::Complete(_)), "{answer:?}");
            let (verdict, got_rule) = expected(raw, &answer);
            assert_eq!(got_rule, rule);
            if status != 0 {
                assert_eq!(verdict, Verdict::Refuse(status));
            }
            check(raw);
        }
    }

    /// httparse refuses a syntax error anywhere; the contract parses no
    /// further than its limit, and answers 431 for a head not complete
    /// within it.
    #[test]
    fn a_syntax_error_past_the_limit_is_the_limits_431() {
        let mut raw = b"GET / HTTP/1.1\r\nX: ".to_vec();
        raw.resize(MAX_HEADER_BYTES + 100, b'a');
        raw.extend_from_slice(b"\x01\r\n\r\n");
        assert!(matches!(httparse_answer(&raw), Httparse::Error(_)));
        assert_eq!(
            expected(&raw, &httparse_answer(&raw)),
            (Verdict::Refuse(431), Rule::HeadTooLarge)
        );
        check(&raw);
    }

    #[test]
    fn where_both_accept_the_heads_are_the_same() {
        let raw =
            b"POST /echo?x=1 HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip , chunked\r\n\r\n5\r\n";
        let Verdict::Accept(head) = server_verdict(raw) else {
            panic!("refused: {:?}", server_verdict(raw));
        };
        assert_eq!(head.framing, BodyFraming::Chunked);
        assert_eq!(head.headers.len(), 2);
        check(raw);
    }
}
