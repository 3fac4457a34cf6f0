//! loadgen's response reader (crates/loadgen/src/http1.rs and chunked.rs)
//! on arbitrary bytes from a server: heads, bodies by length, chunked or
//! until close, interim responses, several responses back to back.
//!
//! What must hold: the reader never panics, never waits on bytes it
//! already has, and always stops; how the bytes arrive changes none of its
//! answers; a connection that ended cleanly between responses was read to
//! its last byte.

use loadgen::fuzzing::{read_responses, ResponseSummary};

use crate::pieces::piece_sizes;

/// The target.
pub fn check(input: &[u8]) {
    for no_body in [false, true] {
        let (whole, received) = read_responses(input, usize::MAX, no_body);
        let Some((stop, responses)) = whole.split_last() else {
            panic!("the reader gave no answer");
        };
        assert!(
            !matches!(
                stop,
                ResponseSummary::Response { .. } | ResponseSummary::Pending
            ),
            "the reader stopped with {stop:?}"
        );
        assert!(responses
            .iter()
            .all(|r| matches!(r, ResponseSummary::Response { .. })));
        if *stop == ResponseSummary::ClosedBeforeResponse {
            assert_eq!(received, input.len() as u64, "bytes left unread");
        }
        for piece in piece_sizes(input) {
            assert_eq!(
                read_responses(input, piece, no_body).0,
                whole,
                "read in pieces of {piece} bytes, not as when read whole (no_body: {no_body})"
            );
        }
    }
}
