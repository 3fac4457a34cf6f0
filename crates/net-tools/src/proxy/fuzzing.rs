//! The proxy's exchange counting ([`super::exchanges`]) driven by a script
//! of events on one connection, with a clock the script moves, for the fuzz
//! targets (fuzz/ at the workspace root) and their replay tests
//! (crates/fuzz-checks). Not the proxy's API: hidden from its docs, and
//! nothing in the proxy calls it.
//!
//! The script plays the proxy's four threads of one connection in one
//! order: the client's chunks arrive and are written on to the server in
//! turn, the server's are read and written back to the client in turn, as
//! `read_side` and `write_side` do, and the clock only moves when the
//! script says.

use std::collections::VecDeque;

use super::exchanges::{Counters, OpenExchange, ProxyStats};

/// One step of a connection's traffic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A chunk of this many bytes arrives from the client.
    ClientChunkArrives(usize),
    /// The oldest client chunk not yet written is written to the server
    /// (nothing if none is waiting).
    ClientChunkLeaves,
    /// A chunk of this many bytes is read from the server.
    ServerChunkArrives(usize),
    /// The oldest server chunk not yet written is written to the client.
    ServerChunkLeaves,
    /// The clock moves on by this many nanoseconds.
    Tick(u64),
}

/// Plays `events` through the proxy's counters from a clock at 1 ns;
/// returns what they counted.
pub fn count_exchanges(events: &[Event]) -> ProxyStats {
    let counters = Counters::new();
    let exchange = OpenExchange::default();
    // The counters' "no time" is 0, so the script's clock starts after it.
    let mut now: u64 = 1;
    // Client chunks on their way: bytes, and whether the chunk opened an
    // exchange; server chunks: bytes, and when each was read.
    let mut to_server: VecDeque<(usize, bool)> = VecDeque::new();
    let mut to_client: VecDeque<(usize, u64)> = VecDeque::new();
    for event in events {
        match *event {
            Event::ClientChunkArrives(bytes) => {
                let opened = exchange.client_sent_at(&counters, bytes, now);
                to_server.push_back((bytes, opened));
            }
            Event::ClientChunkLeaves => {
                if let Some((_, true)) = to_server.pop_front() {
                    exchange.forwarded_at(now);
                }
            }
            Event::ServerChunkArrives(bytes) => to_client.push_back((bytes, now)),
            Event::ServerChunkLeaves => {
                if let Some((bytes, read_at)) = to_client.pop_front() {
                    exchange.server_answers_at(&counters, read_at, bytes, now);
                }
            }
            Event::Tick(ns) => now = now.saturating_add(ns),
        }
    }
    counters.read()
}
