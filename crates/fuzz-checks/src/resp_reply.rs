//! The yielding driver's RESP decoder (crates/blocking-server/src/
//! yielding/resp.rs) on arbitrary bytes from a Redis server.
//!
//! What must hold: decoding never panics; a reply takes at least one byte
//! and no more than there are; a reply does not depend on the bytes after
//! it; and every prefix of a reply is incomplete, never an error (a reply
//! split across two reads must decode as one).

use blocking_server::fuzzing::parse_resp_reply;

/// Prefixes checked of each reply: all of them up to this length, then
/// the first and last few.
const ALL_PREFIXES_UP_TO: usize = 64;

/// The target: decodes replies one after another until the input is
/// incomplete or wrong.
pub fn check(input: &[u8]) {
    let mut rest = input;
    while let Ok(Some((reply, used))) = parse_resp_reply(rest) {
        assert!(
            used > 0 && used <= rest.len(),
            "a reply took {used} of {} bytes",
            rest.len()
        );
        assert_eq!(
            parse_resp_reply(&rest[..used]),
            Ok(Some((reply, used))),
            "the reply changes without the bytes after it"
        );
        for k in prefixes(used) {
            assert_eq!(
                parse_resp_reply(&rest[..k]),
                Ok(None),
                "the first {k} bytes of a {used}-byte reply"
            );
        }
        rest = &rest[used..];
    }
}

fn prefixes(used: usize) -> Vec<usize> {
    if used <= ALL_PREFIXES_UP_TO {
        (0..used).collect()
    } else {
        (0..8).chain(used - 8..used).collect()
    }
}
