//! The blocking server's request reader (crates/blocking-server/src/http/
//! read.rs) on arbitrary bytes: heads, `Content-Length` and chunked bodies,
//! pipelined requests.
//!
//! What must hold: the reader never panics and always stops; how the bytes
//! arrive (all at once, or in pieces) changes none of its answers; its
//! first answer is the head parser's (the differential target holds that
//! parser to httparse); a `Content-Length` body is the bytes after the
//! head, and one the input ends before is refused as cut short; no body
//! passes the contract's limit.

use blocking_server::fuzzing::{read_requests, ReadSummary};
use contract::framing::{body_cut_short, BodyFraming};
use contract::head::split_target;
use contract::params::MAX_BODY_BYTES;

use crate::head_differential::{server_verdict, Verdict};
use crate::pieces::piece_sizes;

/// The target.
pub fn check(input: &[u8]) {
    let whole = read_requests(input, usize::MAX);
    check_outcomes(&whole);
    check_first_against_head_parser(input, &whole[0]);
    for piece in piece_sizes(input) {
        assert_eq!(
            read_requests(input, piece),
            whole,
            "read in pieces of {piece} bytes, not as when read whole"
        );
    }
}

/// Requests, then one stop that is not a wait for the poller.
fn check_outcomes(outcomes: &[ReadSummary]) {
    let Some((stop, requests)) = outcomes.split_last() else {
        panic!("the reader gave no outcome");
    };
    assert!(
        !matches!(stop, ReadSummary::Request { .. } | ReadSummary::NeedMore),
        "the reader stopped with {stop:?}"
    );
    for request in requests {
        let ReadSummary::Request { body, .. } = request else {
            panic!("the reader went on after {request:?}");
        };
        assert!(
            body.len() <= MAX_BODY_BYTES,
            "a body of {} bytes",
            body.len()
        );
    }
}

/// The reader's first answer is what the head parser says of the input,
/// then of the body it announced.
fn check_first_against_head_parser(input: &[u8], first: &ReadSummary) {
    match (server_verdict(input), first) {
        (Verdict::NeedMore, ReadSummary::Closed) => {}
        (
            Verdict::Refuse(status),
            ReadSummary::Refused {
                status: got,
                after_head: false,
                ..
            },
        ) if status == *got => {}
        (
            Verdict::Accept(head),
            ReadSummary::Request {
                method,
                target,
                http10,
                body,
                ..
            },
        ) => {
            // Absolute-form is routed by its path and query.
            let want = match split_target(&head.target) {
                (path, Some(query)) => format!("{path}?{query}"),
                (path, None) => path.to_owned(),
            };
            assert_eq!((method, target), (&head.method, &want));
            assert_eq!(*http10, head.version == 0);
            match head.framing {
                BodyFraming::None => assert!(body.is_empty()),
                BodyFraming::Length(n) => assert_eq!(
                    Some(&body[..]),
                    input.get(head.len..head.len + n),
                    "not the {n} bytes after the head"
                ),
                BodyFraming::Chunked => {}
            }
        }
        // A body refused once the head was in: a chunked one by its
        // rules, or one the input ended before (the client's close).
        (
            Verdict::Accept(head),
            ReadSummary::Refused {
                after_head: true,
                status,
                message,
            },
        ) => match head.framing {
            BodyFraming::Chunked => {}
            BodyFraming::Length(n) => {
                assert!(input.len() < head.len + n, "a whole body, refused");
                assert_eq!((*status, message), (400, &body_cut_short().message));
            }
            BodyFraming::None => panic!("no body, and the body was refused"),
        },
        (verdict, first) => panic!("the head parser says {verdict:?}, the reader {first:?}"),
    }
}
