//! The yielding driver's Postgres client: the wire protocol spoken on
//! may's `TcpStream`, with `postgres-protocol`'s message codec and SCRAM.
//!
//! What the coroutine does while it waits: it writes a message, then reads;
//! a read that finds nothing parks the coroutine (crate::yielding::wire)
//! and its carrier serves other requests until Postgres answers. The
//! pinning driver's tokio-postgres `block_on` (server_support::sync_postgres) waits in
//! `epoll_wait` on the carrier itself instead.
//!
//! The protocol, as much as `GET /users/{id}` needs:
//! - start-up: `StartupMessage`, then trust, cleartext, MD5 or
//!   SCRAM-SHA-256 authentication, then `BackendKeyData` and
//!   `ParameterStatus` until `ReadyForQuery`;
//! - once per connection, `Parse` of `SELECT_USER_BY_ID` as a named
//!   statement and `Describe`, whose `RowDescription` is checked against
//!   the column types the row decoder reads;
//! - per query, `Bind` (the id as a binary int8, every result column in
//!   binary) / `Execute` / `Sync`: one round trip, as tokio-postgres makes
//!   with a cached statement.
//!
//! Errors as in server_support::sync_postgres: an `ErrorResponse`'s SQLSTATE decides by the
//! contract's rule (`ErrorKind::for_sqlstate`), a socket error or a missed
//! deadline is `Unavailable` (503), and after any error the connection is
//! marked broken and the pool closes it.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use contract::error::ErrorKind;
use contract::model::User;
use contract::sql::SELECT_USER_BY_ID;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256, SCRAM_SHA_256};
use postgres_protocol::message::backend::{
    AuthenticationSaslBody, ErrorResponseBody, Message, RowDescriptionBody,
};
use postgres_protocol::message::frontend;
use postgres_protocol::{types, IsNull};
use server_settings::CommonSettings;

use super::pool::{Connection, Pool, PoolConfig};
use super::wire::Wire;
use server_support::sync_postgres::DbError;

use crate::executor::Waits;

/// The name of the prepared statement on every connection.
const STATEMENT: &str = "user_by_id";

/// Type OIDs of the columns the row decoder reads (pg_type.dat).
const INT8: u32 = 20;
const TEXT: u32 = 25;
const VARCHAR: u32 = 1043;
const TIMESTAMPTZ: u32 = 1184;

/// Microseconds from the Unix epoch to Postgres' (2000-01-01 UTC).
const PG_EPOCH_FROM_UNIX_MICROS: i64 = 946_684_800_000_000;

/// Where and as whom to connect, from `DATABASE_URL`.
#[derive(Debug, Clone)]
pub(crate) struct PgConfig {
    host: String,
    port: u16,
    user: String,
    password: Option<Vec<u8>>,
    dbname: String,
    /// Each call's deadline (the acquire timeout, as in server_support::sync_postgres).
    pub(crate) call_timeout: Duration,
}

impl PgConfig {
    /// Parsed by tokio-postgres' URL parser, so both drivers read
    /// `DATABASE_URL` alike.
    pub(crate) fn from_settings(settings: &CommonSettings) -> anyhow::Result<PgConfig> {
        let parsed: tokio_postgres::Config = settings
            .database_url
            .parse()
            .map_err(|e| anyhow::anyhow!("parsing DATABASE_URL: {e}"))?;
        let host = match parsed.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
            Some(_) => anyhow::bail!("the yielding driver connects over TCP only"),
            None => "localhost".to_owned(),
        };
        let user = parsed
            .get_user()
            .ok_or_else(|| anyhow::anyhow!("DATABASE_URL names no user"))?
            .to_owned();
        Ok(PgConfig {
            host,
            port: parsed.get_ports().first().copied().unwrap_or(5432),
            dbname: parsed.get_dbname().unwrap_or(&user).to_owned(),
            password: parsed.get_password().map(<[u8]>::to_vec),
            user,
            call_timeout: settings.acquire_timeout(),
        })
    }
}

/// The pool, built without connecting (connections open on first use).
pub(crate) fn pool(settings: &CommonSettings) -> anyhow::Result<Pool<PgConn>> {
    let config = PgConfig::from_settings(settings)?;
    let bounds = PoolConfig::from_settings("postgres", settings.db_pool_size, settings);
    Ok(Pool::new(bounds, move |waits, deadline| {
        PgConn::connect(waits, &config, deadline).map_err(|e| e.to_string())
    }))
}

/// One Postgres connection with the user statement prepared.
pub(crate) struct PgConn {
    wire: Wire,
    call_timeout: Duration,
    broken: bool,
    /// The server process serving this connection (`BackendKeyData`).
    backend_pid: i32,
}

impl PgConn {
    /// Connects, authenticates and prepares the user statement, all by
    /// `deadline`.
    pub(crate) fn connect(
        waits: &Waits<'_>,
        config: &PgConfig,
        deadline: Instant,
    ) -> Result<PgConn, DbError> {
        let wire = Wire::connect(
            waits,
            &config.host,
            config.port,
            deadline,
            config.call_timeout,
        )
        .map_err(|e| io_error("connecting", &e))?;
        let mut conn = PgConn {
            wire,
            call_timeout: config.call_timeout,
            broken: false,
            backend_pid: 0,
        };
        conn.start_up(waits, config, deadline)?;
        conn.prepare(waits, deadline)?;
        Ok(conn)
    }

    /// The server process of this connection (for tests that end it).
    #[cfg(test)]
    pub(crate) fn backend_pid(&self) -> i32 {
        self.backend_pid
    }

    /// `GET /users/{id}`'s query: one round trip with the prepared
    /// statement; `None` when no row matches.
    pub(crate) fn user_by_id(
        &mut self,
        waits: &Waits<'_>,
        id: i64,
    ) -> Result<Option<User>, DbError> {
        let deadline = Instant::now() + self.call_timeout;
        let result = self.query_user(waits, id, deadline);
        if result.is_err() {
            // Mid-protocol state unknown: never hand this connection out again.
            self.broken = true;
        }
        result
    }

    fn query_user(
        &mut self,
        waits: &Waits<'_>,
        id: i64,
        deadline: Instant,
    ) -> Result<Option<User>, DbError> {
        let buf = &mut self.wire.write;
        frontend::bind(
            "",
            STATEMENT,
            [1], // the parameter in binary
            [id],
            |id, buf| {
                types::int8_to_sql(id, buf);
                Ok(IsNull::No)
            },
            [1], // every result column in binary
            buf,
        )
        .map_err(|_| DbError::Internal("encoding the user query".into()))?;
        frontend::execute("", 0, buf).map_err(|e| encode_error(&e))?;
        frontend::sync(buf);
        self.send(waits)?;
        let mut user = None;
        loop {
            match self.next_message(waits, deadline)? {
                Message::BindComplete | Message::CommandComplete(_) => {}
                Message::DataRow(row) => user = Some(user_from_row(&row)?),
                Message::ReadyForQuery(_) => return Ok(user),
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                _ => return Err(unexpected("the user query")),
            }
        }
    }

    /// The start-up message, authentication, and the session's parameters
    /// until the server is ready for queries.
    fn start_up(
        &mut self,
        waits: &Waits<'_>,
        config: &PgConfig,
        deadline: Instant,
    ) -> Result<(), DbError> {
        let params = [
            ("user", config.user.as_str()),
            ("database", config.dbname.as_str()),
            ("application_name", "blocking-server"),
            ("client_encoding", "UTF8"),
        ];
        frontend::startup_message(params, &mut self.wire.write).map_err(|e| encode_error(&e))?;
        self.send(waits)?;
        self.authenticate(waits, config, deadline)?;
        loop {
            match self.next_message(waits, deadline)? {
                Message::BackendKeyData(key) => self.backend_pid = key.process_id(),
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                _ => return Err(unexpected("start-up")),
            }
        }
    }

    /// Answers the server's authentication request until `AuthenticationOk`.
    fn authenticate(
        &mut self,
        waits: &Waits<'_>,
        config: &PgConfig,
        deadline: Instant,
    ) -> Result<(), DbError> {
        let password = || {
            config
                .password
                .as_deref()
                .ok_or_else(|| DbError::Unavailable("the server asks for a password".into()))
        };
        match self.next_message(waits, deadline)? {
            Message::AuthenticationOk => return Ok(()),
            Message::AuthenticationCleartextPassword => {
                frontend::password_message(password()?, &mut self.wire.write)
                    .map_err(|e| encode_error(&e))?;
            }
            Message::AuthenticationMd5Password(body) => {
                let hash = postgres_protocol::authentication::md5_hash(
                    config.user.as_bytes(),
                    password()?,
                    body.salt(),
                );
                frontend::password_message(hash.as_bytes(), &mut self.wire.write)
                    .map_err(|e| encode_error(&e))?;
            }
            Message::AuthenticationSasl(body) => {
                let offered = sasl_mechanisms(&body)?;
                if !offered.iter().any(|m| m == SCRAM_SHA_256) {
                    return Err(DbError::Unavailable(format!(
                        "no supported SASL mechanism in {offered:?}"
                    )));
                }
                self.scram(waits, password()?, deadline)?;
            }
            Message::ErrorResponse(body) => return Err(server_error(&body)),
            _ => return Err(unexpected("authentication")),
        }
        self.send(waits)?;
        match self.next_message(waits, deadline)? {
            Message::AuthenticationOk => Ok(()),
            Message::ErrorResponse(body) => Err(server_error(&body)),
            _ => Err(unexpected("authentication")),
        }
    }

    /// SCRAM-SHA-256 without channel binding (no TLS here): client-first,
    /// server-first, client-final, server-final; the caller sends the last
    /// message and reads `AuthenticationOk`.
    fn scram(
        &mut self,
        waits: &Waits<'_>,
        password: &[u8],
        deadline: Instant,
    ) -> Result<(), DbError> {
        let auth_failed = |e: std::io::Error| DbError::Unavailable(format!("SCRAM: {e}"));
        let mut scram = ScramSha256::new(password, ChannelBinding::unsupported());
        frontend::sasl_initial_response(SCRAM_SHA_256, scram.message(), &mut self.wire.write)
            .map_err(|e| encode_error(&e))?;
        self.send(waits)?;
        match self.next_message(waits, deadline)? {
            Message::AuthenticationSaslContinue(body) => {
                scram.update(body.data()).map_err(auth_failed)?;
            }
            Message::ErrorResponse(body) => return Err(server_error(&body)),
            _ => return Err(unexpected("SCRAM")),
        }
        frontend::sasl_response(scram.message(), &mut self.wire.write)
            .map_err(|e| encode_error(&e))?;
        self.send(waits)?;
        match self.next_message(waits, deadline)? {
            Message::AuthenticationSaslFinal(body) => {
                scram.finish(body.data()).map_err(auth_failed)
            }
            Message::ErrorResponse(body) => Err(server_error(&body)),
            _ => Err(unexpected("SCRAM")),
        }
    }

    /// `Parse` and `Describe` of the user statement, once per connection;
    /// checks that the columns are the types [`user_from_row`] decodes.
    fn prepare(&mut self, waits: &Waits<'_>, deadline: Instant) -> Result<(), DbError> {
        let buf = &mut self.wire.write;
        frontend::parse(STATEMENT, SELECT_USER_BY_ID, [INT8], buf).map_err(|e| encode_error(&e))?;
        frontend::describe(b'S', STATEMENT, buf).map_err(|e| encode_error(&e))?;
        frontend::sync(buf);
        self.send(waits)?;
        let mut columns = None;
        loop {
            match self.next_message(waits, deadline)? {
                Message::ParseComplete | Message::ParameterDescription(_) => {}
                Message::RowDescription(body) => columns = Some(column_types(&body)?),
                Message::ReadyForQuery(_) => break,
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                _ => return Err(unexpected("preparing the user query")),
            }
        }
        check_user_columns(columns.as_deref())
    }

    /// One empty round trip: `Sync`, answered by `ReadyForQuery`.
    fn sync(&mut self, waits: &Waits<'_>) -> Result<(), DbError> {
        let deadline = Instant::now() + self.call_timeout;
        frontend::sync(&mut self.wire.write);
        self.send(waits)?;
        match self.next_message(waits, deadline)? {
            Message::ReadyForQuery(_) => Ok(()),
            Message::ErrorResponse(body) => Err(server_error(&body)),
            _ => Err(unexpected("a sync")),
        }
    }

    fn send(&mut self, waits: &Waits<'_>) -> Result<(), DbError> {
        self.wire.flush(waits).map_err(|e| io_error("writing", &e))
    }

    /// The next message that answers us, parking until it comes; notices
    /// and parameter changes, which the server may send at any time, are
    /// skipped.
    fn next_message(&mut self, waits: &Waits<'_>, deadline: Instant) -> Result<Message, DbError> {
        loop {
            match Message::parse(&mut self.wire.read).map_err(|e| io_error("parsing", &e))? {
                Some(
                    Message::NoticeResponse(_)
                    | Message::ParameterStatus(_)
                    | Message::NotificationResponse(_),
                ) => {}
                Some(message) => return Ok(message),
                None => self
                    .wire
                    .fill(waits, deadline)
                    .map_err(|e| io_error("reading", &e))?,
            }
        }
    }
}

impl Connection for PgConn {
    fn is_broken(&self) -> bool {
        self.broken
    }

    fn ping(&mut self, waits: &Waits<'_>) -> Result<(), String> {
        let result = self.sync(waits);
        if result.is_err() {
            self.broken = true;
        }
        result.map_err(|e| e.to_string())
    }
}

/// The mechanisms an `AuthenticationSasl` offers.
pub(crate) fn sasl_mechanisms(body: &AuthenticationSaslBody) -> Result<Vec<String>, DbError> {
    body.mechanisms()
        .map(|m| Ok(m.to_owned()))
        .collect()
        .map_err(|e| io_error("reading SASL mechanisms", &e))
}

/// The type of each column a `RowDescription` describes.
pub(crate) fn column_types(body: &RowDescriptionBody) -> Result<Vec<u32>, DbError> {
    body.fields()
        .map(|f| Ok(f.type_oid()))
        .collect()
        .map_err(|e| io_error("reading the row description", &e))
}

/// Whether the user statement's columns (`None`: never described) are the
/// types [`user_from_row`] decodes.
pub(crate) fn check_user_columns(columns: Option<&[u32]>) -> Result<(), DbError> {
    match columns {
        Some([INT8, name, email, TIMESTAMPTZ, TIMESTAMPTZ])
            if [name, email].iter().all(|t| [TEXT, VARCHAR].contains(t)) =>
        {
            Ok(())
        }
        other => Err(DbError::Internal(format!(
            "the user query's column types {other:?} are not (int8, text, text, timestamptz, timestamptz)"
        ))),
    }
}

/// A `DataRow` of the user query, every column binary.
pub(crate) fn user_from_row(
    row: &postgres_protocol::message::backend::DataRowBody,
) -> Result<User, DbError> {
    let buffer = row.buffer();
    let columns: Vec<Option<std::ops::Range<usize>>> = row
        .ranges()
        .collect()
        .map_err(|e| io_error("reading a row", &e))?;
    let column = |i: usize| -> Result<&[u8], DbError> {
        match columns.get(i) {
            Some(Some(range)) => buffer
                .get(range.clone())
                .ok_or_else(|| DbError::Internal(format!("column {i} out of the row"))),
            _ => Err(DbError::Internal(format!("column {i} is missing or null"))),
        }
    };
    let text = |i: usize| -> Result<String, DbError> {
        types::text_from_sql(column(i)?)
            .map(str::to_owned)
            .map_err(|e| DbError::Internal(format!("column {i}: {e}")))
    };
    let timestamp = |i: usize| -> Result<DateTime<Utc>, DbError> {
        let since_2000 = types::timestamp_from_sql(column(i)?)
            .map_err(|e| DbError::Internal(format!("column {i}: {e}")))?;
        since_2000
            .checked_add(PG_EPOCH_FROM_UNIX_MICROS)
            .and_then(DateTime::from_timestamp_micros)
            .ok_or_else(|| DbError::Internal(format!("column {i}: timestamp out of range")))
    };
    Ok(User {
        id: types::int8_from_sql(column(0)?)
            .map_err(|e| DbError::Internal(format!("column 0: {e}")))?,
        name: text(1)?,
        email: text(2)?,
        created_at: timestamp(3)?,
        updated_at: timestamp(4)?,
    })
}

/// An `ErrorResponse` as the contract maps its SQLSTATE (503 or 500),
/// with the code and message kept for the log.
pub(crate) fn server_error(body: &ErrorResponseBody) -> DbError {
    let (mut code, mut message) = (None, String::new());
    let mut fields = body.fields();
    while let Ok(Some(field)) = fields.next() {
        match field.type_() {
            b'C' => code = Some(String::from_utf8_lossy(field.value_bytes()).into_owned()),
            b'M' => message = String::from_utf8_lossy(field.value_bytes()).into_owned(),
            _ => {}
        }
    }
    let text = format!("{message} (SQLSTATE {})", code.as_deref().unwrap_or("none"));
    match ErrorKind::for_sqlstate(code.as_deref()) {
        ErrorKind::Unavailable => DbError::Unavailable(text),
        _ => DbError::Internal(text),
    }
}

/// A socket or framing error: Postgres is unreachable, stalled or gone.
fn io_error(doing: &str, e: &std::io::Error) -> DbError {
    match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
            DbError::Unavailable(format!("{doing}: no answer before the deadline"))
        }
        _ => DbError::Unavailable(format!("{doing}: {e}")),
    }
}

fn encode_error(e: &std::io::Error) -> DbError {
    DbError::Internal(format!("encoding a message: {e}"))
}

fn unexpected(during: &str) -> DbError {
    DbError::Internal(format!("unexpected message from Postgres during {during}"))
}
