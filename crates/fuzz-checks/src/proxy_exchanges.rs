//! The TCP proxy's exchange counting (crates/net-tools/src/proxy/
//! exchanges.rs) against its definition: the input is a script of one
//! connection's traffic (each byte one event: a chunk arriving or leaving
//! either way, or the clock moving on), played through the proxy's
//! counters and through [`Model`], the definition in the module's doc
//! written out step by step; both must count the same exchanges, round
//! trips and bytes.

use std::collections::VecDeque;
use std::time::Duration;

use net_tools::proxy::fuzzing::{count_exchanges, Event};
use net_tools::proxy::ROUND_TRIP_BUCKETS_US;
use net_tools::ProxyStats;

/// The event a byte of the input stands for: its low 3 bits the kind, the
/// high 5 bits `n`, its size: a chunk of `n + 1` bytes, or a tick of
/// `2^n - 1` nanoseconds (up to about 2 s, past the last bucket) or of
/// `n` times 250 µs (the buckets' bounds, so that a fuzzer lands a round
/// trip on a bound, or a nanosecond past it, in two ticks).
pub fn event(byte: u8) -> Event {
    let n = byte >> 3;
    match byte & 0b111 {
        0 | 5 => Event::ClientChunkArrives(usize::from(n) + 1),
        1 | 6 => Event::ClientChunkLeaves,
        2 => Event::ServerChunkArrives(usize::from(n) + 1),
        3 => Event::ServerChunkLeaves,
        4 => Event::Tick((1u64 << n) - 1),
        _ => Event::Tick(u64::from(n) * 250_000),
    }
}

/// The target.
pub fn check(input: &[u8]) {
    let events: Vec<Event> = input.iter().copied().map(event).collect();
    let counted = count_exchanges(&events);
    let defined = Model::default().play(&events);
    assert_eq!(counted, defined, "the proxy counted otherwise than defined");
    assert_eq!(counted.buckets.iter().sum::<u64>(), counted.exchanges);
}

/// An exchange as the definition has it.
#[derive(Debug, Clone, Copy)]
struct Exchange {
    /// When its first client chunk arrived.
    opened_at: u64,
    /// When that chunk reached the server, once it has.
    reached_server_at: Option<u64>,
}

/// "An exchange is a burst of bytes from the client followed by the
/// server's answer. It opens when a client chunk arrives at the proxy and
/// none is open on that connection; it closes when the first chunk of the
/// server's answer leaves the proxy towards the client, the answer being
/// the first chunk the server sent after the burst reached it."
#[derive(Debug, Default)]
struct Model {
    now: u64,
    open: Option<Exchange>,
    /// Client chunks on their way to the server: whether each opened the
    /// exchange.
    to_server: VecDeque<bool>,
    /// Server chunks on their way to the client: bytes, and when read.
    to_client: VecDeque<(usize, u64)>,
    stats: ProxyStats,
}

impl Model {
    fn play(mut self, events: &[Event]) -> ProxyStats {
        self.now = 1;
        for event in events {
            match *event {
                Event::ClientChunkArrives(bytes) => {
                    self.stats.bytes_to_server += bytes as u64;
                    let opens = self.open.is_none();
                    if opens {
                        self.open = Some(Exchange {
                            opened_at: self.now,
                            reached_server_at: None,
                        });
                    }
                    self.to_server.push_back(opens);
                }
                Event::ClientChunkLeaves => {
                    if let (Some(true), Some(open)) = (self.to_server.pop_front(), &mut self.open) {
                        open.reached_server_at = Some(self.now);
                    }
                }
                Event::ServerChunkArrives(bytes) => self.to_client.push_back((bytes, self.now)),
                Event::ServerChunkLeaves => self.server_chunk_leaves(),
                Event::Tick(ns) => self.now = self.now.saturating_add(ns),
            }
        }
        self.stats
    }

    fn server_chunk_leaves(&mut self) {
        let Some((bytes, read_at)) = self.to_client.pop_front() else {
            return;
        };
        self.stats.bytes_to_client += bytes as u64;
        let Some(open) = self.open else { return };
        // An answer only if the server sent it after the burst reached it.
        if open
            .reached_server_at
            .is_some_and(|reached| read_at >= reached)
        {
            self.open = None;
            let round_trip = self.now - open.opened_at;
            self.stats.exchanges += 1;
            self.stats.delivered += Duration::from_nanos(round_trip);
            let bucket = ROUND_TRIP_BUCKETS_US
                .iter()
                .position(|bound| round_trip <= bound * 1_000)
                .unwrap_or(ROUND_TRIP_BUCKETS_US.len());
            self.stats.buckets[bucket] += 1;
        }
    }
}
