//! The yielding driver's Redis client: RESP2 on may's `TcpStream`, the
//! three commands the server sends (GET, SET, and AUTH/SELECT when the
//! URL asks) and the replies they get.
//!
//! What the coroutine does while it waits: it writes the command, then
//! parks in a read (crate::yielding::wire) until Redis answers; its
//! carrier serves other requests meanwhile. The pinning driver's redis
//! crate connection (server_support::sync_redis) blocks the carrier in `read` instead.
//!
//! As in server_support::sync_redis: `/users/{id}/cache` reads its two keys with two
//! GETs, one round trip each, and a miss writes both keys back with two
//! SETs pipelined into one round trip (no expiry, as there). A value our
//! code cannot read (not UTF-8, or a key of another type) is
//! `CacheError::Unreadable` (the contract's 500), as with the redis crate;
//! every other failure, an error reply included, is `Unavailable` (503),
//! and the connection is marked broken so the pool closes it.

use std::time::{Duration, Instant};

use bytes::Buf;
use contract::cache::{email_key, name_key};
use server_settings::CommonSettings;
use server_support::sync_redis::CacheError;

use crate::executor::Waits;

use super::pool::{Connection, Pool, PoolConfig};
use super::wire::Wire;

/// Where to connect and how to log in, from `REDIS_URL`.
#[derive(Debug, Clone)]
pub(crate) struct RedisConfig {
    host: String,
    port: u16,
    username: Option<String>,
    password: Option<String>,
    db: i64,
    /// Each call's deadline (the acquire timeout, as in server_support::sync_redis).
    pub(crate) call_timeout: Duration,
}

impl RedisConfig {
    /// Parsed by the redis crate's URL parser, so both drivers read
    /// `REDIS_URL` alike.
    pub(crate) fn from_settings(settings: &CommonSettings) -> anyhow::Result<RedisConfig> {
        let client = redis::Client::open(settings.redis_url.as_str())
            .map_err(|e| anyhow::anyhow!("parsing REDIS_URL: {e}"))?;
        let info = client.get_connection_info();
        let redis::ConnectionAddr::Tcp(host, port) = &info.addr else {
            anyhow::bail!("the yielding driver connects to Redis over plain TCP only");
        };
        Ok(RedisConfig {
            host: host.clone(),
            port: *port,
            username: info.redis.username.clone(),
            password: info.redis.password.clone(),
            db: info.redis.db,
            call_timeout: settings.acquire_timeout(),
        })
    }
}

/// The pool, built without connecting (connections open on first use).
pub(crate) fn pool(settings: &CommonSettings) -> anyhow::Result<Pool<RedisConn>> {
    let config = RedisConfig::from_settings(settings)?;
    let bounds = PoolConfig::from_settings("redis", settings.redis_pool_size, settings);
    Ok(Pool::new(bounds, move |waits, deadline| {
        RedisConn::connect(waits, &config, deadline)
    }))
}

/// A RESP2 reply, as far as GET, SET, AUTH and SELECT answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`
    Simple(String),
    /// `-ERR ...`
    Error(String),
    /// `:1`
    Integer(i64),
    /// `$5\r\nhello`, or `$-1` (nil)
    Bulk(Option<Vec<u8>>),
}

/// One Redis connection.
pub(crate) struct RedisConn {
    wire: Wire,
    call_timeout: Duration,
    broken: bool,
}

impl RedisConn {
    /// Connects, and logs in and selects the database if the URL says so,
    /// by `deadline`.
    pub(crate) fn connect(
        waits: &Waits<'_>,
        config: &RedisConfig,
        deadline: Instant,
    ) -> Result<RedisConn, String> {
        let wire = Wire::connect(
            waits,
            &config.host,
            config.port,
            deadline,
            config.call_timeout,
        )
        .map_err(|e| format!("connecting to redis: {e}"))?;
        let mut conn = RedisConn {
            wire,
            call_timeout: config.call_timeout,
            broken: false,
        };
        let mut expected = 0;
        if let Some(password) = &config.password {
            match &config.username {
                Some(user) => conn.command(&[b"AUTH", user.as_bytes(), password.as_bytes()]),
                None => conn.command(&[b"AUTH", password.as_bytes()]),
            }
            expected += 1;
        }
        if config.db != 0 {
            conn.command(&[b"SELECT", config.db.to_string().as_bytes()]);
            expected += 1;
        }
        if expected > 0 {
            for reply in conn.round_trip(waits, expected, deadline)? {
                ok(reply)?;
            }
        }
        Ok(conn)
    }

    /// The two cached fields of a user: two GETs, one after the other.
    pub(crate) fn get_user_fields(
        &mut self,
        waits: &Waits<'_>,
        prefix: &str,
        id: i64,
    ) -> Result<(Option<String>, Option<String>), CacheError> {
        let name = self.get(waits, &name_key(prefix, id))?;
        let email = self.get(waits, &email_key(prefix, id))?;
        Ok((name, email))
    }

    /// Sets both cached fields of a user: two SETs in one round trip.
    pub(crate) fn set_user_fields(
        &mut self,
        waits: &Waits<'_>,
        prefix: &str,
        id: i64,
        name: &str,
        email: &str,
    ) -> Result<(), CacheError> {
        let deadline = Instant::now() + self.call_timeout;
        self.command(&[b"SET", name_key(prefix, id).as_bytes(), name.as_bytes()]);
        self.command(&[b"SET", email_key(prefix, id).as_bytes(), email.as_bytes()]);
        let replies = self
            .checked(|conn| conn.round_trip(waits, 2, deadline))
            .map_err(CacheError::Unavailable)?;
        for reply in replies {
            self.checked(|_| ok(reply))
                .map_err(CacheError::Unavailable)?;
        }
        Ok(())
    }

    /// `GET key`: the value, or `None` for a missing key. A value that is
    /// not UTF-8 text, or a key of another type, is an answer our code
    /// cannot read (`CacheError::Unreadable`, as the redis crate's clients
    /// classify it: server_support::sync_redis::is_unreadable_value); the
    /// connection is fine and stays in the pool.
    fn get(&mut self, waits: &Waits<'_>, key: &str) -> Result<Option<String>, CacheError> {
        let deadline = Instant::now() + self.call_timeout;
        self.command(&[b"GET", key.as_bytes()]);
        let mut replies = self
            .checked(|conn| conn.round_trip(waits, 1, deadline))
            .map_err(CacheError::Unavailable)?;
        match replies.pop() {
            Some(Reply::Bulk(None)) => Ok(None),
            Some(Reply::Bulk(Some(bytes))) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| CacheError::Unreadable(format!("the value of {key} is not UTF-8"))),
            Some(Reply::Error(e)) if e.starts_with("WRONGTYPE") => Err(CacheError::Unreadable(
                format!("redis answered GET {key} with {e}"),
            )),
            other => {
                self.broken = true;
                Err(CacheError::Unavailable(format!(
                    "unexpected reply to GET: {other:?}"
                )))
            }
        }
    }

    /// Runs `f`, marking the connection broken if it fails.
    fn checked<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, String>) -> Result<T, String> {
        let result = f(self);
        if result.is_err() {
            self.broken = true;
        }
        result
    }

    /// Appends one command, as a RESP array of bulk strings, to the write
    /// buffer.
    fn command(&mut self, args: &[&[u8]]) {
        let out = &mut self.wire.write;
        out.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
        for arg in args {
            out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
            out.extend_from_slice(arg);
            out.extend_from_slice(b"\r\n");
        }
    }

    /// Sends the buffered commands and reads `count` replies.
    fn round_trip(
        &mut self,
        waits: &Waits<'_>,
        count: usize,
        deadline: Instant,
    ) -> Result<Vec<Reply>, String> {
        self.wire
            .flush(waits)
            .map_err(|e| format!("writing to redis: {e}"))?;
        let mut replies = Vec::with_capacity(count);
        while replies.len() < count {
            match parse_reply(&self.wire.read)? {
                Some((reply, used)) => {
                    self.wire.read.advance(used);
                    replies.push(reply);
                }
                None => self
                    .wire
                    .fill(waits, deadline)
                    .map_err(|e| match e.kind() {
                        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                            "no answer from redis before the deadline".to_owned()
                        }
                        _ => format!("reading from redis: {e}"),
                    })?,
            }
        }
        Ok(replies)
    }
}

impl Connection for RedisConn {
    fn is_broken(&self) -> bool {
        self.broken
    }

    fn ping(&mut self, waits: &Waits<'_>) -> Result<(), String> {
        let deadline = Instant::now() + self.call_timeout;
        self.command(&[b"PING"]);
        let mut replies = self.checked(|conn| conn.round_trip(waits, 1, deadline))?;
        self.checked(|_| match replies.pop() {
            Some(Reply::Simple(pong)) if pong == "PONG" => Ok(()),
            other => Err(format!("unexpected reply to PING: {other:?}")),
        })
    }
}

/// `+OK` is success; anything else an error.
fn ok(reply: Reply) -> Result<(), String> {
    match reply {
        Reply::Simple(s) if s == "OK" => Ok(()),
        Reply::Error(e) => Err(format!("redis answered {e}")),
        other => Err(format!("unexpected reply: {other:?}")),
    }
}

/// The first reply in `buf` and how many bytes it took, or `None` if
/// `buf` does not hold a whole one yet.
pub(crate) fn parse_reply(buf: &[u8]) -> Result<Option<(Reply, usize)>, String> {
    let Some(line_end) = buf.windows(2).position(|w| w == b"\r\n") else {
        return Ok(None);
    };
    if line_end == 0 {
        return Err("a redis reply starts with CRLF".into());
    }
    let line = std::str::from_utf8(&buf[1..line_end])
        .map_err(|_| "a redis reply line is not UTF-8".to_owned())?;
    let after_line = line_end + 2;
    let reply = match buf.first() {
        Some(b'+') => Reply::Simple(line.to_owned()),
        Some(b'-') => Reply::Error(line.to_owned()),
        Some(b':') => Reply::Integer(parse_int(line)?),
        Some(b'$') => {
            let len = parse_int(line)?;
            if len < 0 {
                Reply::Bulk(None)
            } else {
                let len = usize::try_from(len).map_err(|_| "bulk length too large".to_owned())?;
                let end = after_line + len;
                if buf.len() < end + 2 {
                    return Ok(None);
                }
                if &buf[end..end + 2] != b"\r\n" {
                    return Err("a bulk string does not end in CRLF".into());
                }
                return Ok(Some((
                    Reply::Bulk(Some(buf[after_line..end].to_vec())),
                    end + 2,
                )));
            }
        }
        Some(other) => {
            return Err(format!(
                "unsupported redis reply type {:?}",
                char::from(*other)
            ))
        }
        None => return Ok(None),
    };
    Ok(Some((reply, after_line)))
}

fn parse_int(text: &str) -> Result<i64, String> {
    text.parse()
        .map_err(|_| format!("{text:?} is not a RESP integer"))
}
