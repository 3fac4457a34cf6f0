//! The yielding driver's Postgres decoding (crates/blocking-server/src/
//! yielding/postgres.rs) on arbitrary bytes from a server: the message
//! framing (postgres-protocol's), then the bodies the client takes apart
//! itself (a user row, an error's SQLSTATE, the statement's column types,
//! the SASL mechanisms).
//!
//! What must hold: decoding never panics; it stops at an incomplete
//! message having used no more bytes than there are; and the messages
//! before that decode the same without the bytes after them.

use blocking_server::fuzzing::decode_pg_messages;

/// The target.
pub fn check(input: &[u8]) {
    let (decoded, used) = decode_pg_messages(input);
    if let Ok(used) = used {
        assert!(used <= input.len(), "used {used} of {} bytes", input.len());
        assert_eq!(
            decode_pg_messages(&input[..used]),
            (decoded, Ok(used)),
            "the messages change without the incomplete rest"
        );
    }
}
