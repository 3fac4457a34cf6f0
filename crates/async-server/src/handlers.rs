//! The handlers of the async server, one per route of `contract::routes::ROUTES`.
//!
//! Each says what its runtime worker thread does while the request waits, and
//! names its twin in crates/blocking-server/src/handlers.rs. A runtime worker
//! is one of a few event-loop threads (as many as cores, like Netty's): while
//! it is blocked, every other connection it would serve waits too. The
//! `/blocking` variants block it on purpose, to show that.

use axum::body::Body;
use axum::extract::{FromRequestParts, RawQuery, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use contract::model::{to_json, CachedUser, CpuResult, EchoRequest, Health, User};
use contract::params::{is_json_content_type, parse_cpu_n, MAX_BODY_BYTES};
use contract::posts::{post_after_delay, POST_DELAY};
use contract::workload::sqrt_sum;
use contract::ApiError;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use serde::Serialize;

use crate::blocking_calls::{self, BlockingCall};
use crate::error::AppError;
use crate::AppState;

type Answer = Result<Response, AppError>;

/// A 200 with a contract body, serialised by the contract so both servers
/// send the same bytes.
fn json<T: Serialize>(value: &T) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        to_json(value),
    )
        .into_response()
}

/// The `{id}` of the request's route, decided once by the contract's rule
/// before the handler runs (`refusal` in crate::route_handler, which
/// answers a bad one with the contract's 400); the handlers of the routes
/// with an id take it as their argument. Twin: the id `run` hands the
/// blocking server's handlers (crates/blocking-server/src/handlers.rs).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathId(pub(crate) i64);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, AppError> {
        // Absent only for a handler that takes an id on a route without one.
        parts.extensions.get::<PathId>().copied().ok_or_else(|| {
            AppError::internal(format_args!(
                "{}: the route has no {{id}}",
                parts.uri.path()
            ))
        })
    }
}

/// GET /health — the worker answers at once.
/// Twin: `health` in crates/blocking-server/src/handlers.rs.
pub(crate) async fn health() -> Response {
    json(&Health::ok())
}

/// GET /cpu — the worker computes inline and serves nobody else until done
/// (WebFlux without a scheduler). Twin: `cpu`, which computes on a pool thread.
pub(crate) async fn cpu(RawQuery(query): RawQuery) -> Answer {
    let n = parse_cpu_n(query.as_deref())?;
    // The stall detector counts it: on this worker, nothing else runs until
    // the loop returns (crate::blocking_calls).
    blocking_calls::mark(BlockingCall::CpuLoop);
    Ok(json(&CpuResult {
        n,
        result: sqrt_sum(n),
    }))
}

/// GET /cpu/spawn-blocking — the worker is free: the task awaits while a
/// tokio blocking-pool thread computes (BoundedElasticScheduler).
/// Twin: `cpu` (the blocking server has no variants).
pub(crate) async fn cpu_spawn_blocking(RawQuery(query): RawQuery) -> Answer {
    let n = parse_cpu_n(query.as_deref())?;
    let result = tokio::task::spawn_blocking(move || sqrt_sum(n))
        .await
        .map_err(|e| AppError::internal(format_args!("cpu task on the blocking pool: {e}")))?;
    Ok(json(&CpuResult { n, result }))
}

/// GET /cpu/rayon — the worker is free: the task awaits a oneshot while one
/// of the rayon pool's threads (one per core) computes (ParallelScheduler).
/// Twin: `cpu`.
pub(crate) async fn cpu_rayon(State(state): State<AppState>, RawQuery(query): RawQuery) -> Answer {
    let n = parse_cpu_n(query.as_deref())?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    state.rayon.spawn(move || {
        // The request may have been abandoned; then nobody listens.
        let _ = tx.send(sqrt_sum(n));
    });
    let result = rx
        .await
        .map_err(|e| AppError::internal(format_args!("cpu task on the rayon pool: {e}")))?;
    Ok(json(&CpuResult { n, result }))
}

fn found(id: i64, user: Option<User>) -> Answer {
    match user {
        Some(user) => Ok(json(&user)),
        None => Err(ApiError::user_not_found(id).into()),
    }
}

/// GET /users/{id} — the worker is free while the driver waits for
/// Postgres; the task is parked on a pool's checkout, a place in a
/// pipeline, or the answer (WebFlux + R2DBC; `--postgres-driver` picks
/// which driver, crate::db). Twin: `user`, whose pool thread blocks on the
/// socket.
pub(crate) async fn user(State(state): State<AppState>, PathId(id): PathId) -> Answer {
    let user = state.db.find_user(id).await?;
    found(id, user)
}

/// GET /users/{id}/blocking — the worker BLOCKS until the sync driver's query
/// returns (WebFlux + JDBC without a scheduler). The query itself runs on a
/// dedicated thread (see `db::SyncDb` for why); the worker waits on a std
/// channel and serves nobody else meanwhile. Twin: `user`.
pub(crate) async fn user_blocking(State(state): State<AppState>, PathId(id): PathId) -> Answer {
    let user = state.sync_db.find_user_blocking_the_caller(id)?;
    found(id, user)
}

/// GET /users/{id}/spawn-blocking — the worker is free: a tokio blocking-pool
/// thread checks a sync connection out and blocks on the query (JDBC on
/// BoundedElasticScheduler). Twin: `user`.
pub(crate) async fn user_spawn_blocking(
    State(state): State<AppState>,
    PathId(id): PathId,
) -> Answer {
    let pool = state.sync_db.pool().clone();
    // The pool's checkout is bounded by the acquire timeout; the extra second
    // bounds a query on a Postgres that accepted the connection but stalls.
    let wait = state.sync_db.acquire_timeout() + std::time::Duration::from_secs(1);
    let task = tokio::task::spawn_blocking(move || crate::db::find_user_sync(&pool, id));
    let user = match tokio::time::timeout(wait, task).await {
        Ok(Ok(result)) => result?,
        Ok(Err(e)) => {
            return Err(AppError::internal(format_args!(
                "query task on the blocking pool: {e}"
            )))
        }
        Err(_) => {
            return Err(AppError::unavailable(
                "database",
                format_args!("postgres (sync): no answer within {wait:?}"),
            ))
        }
    };
    found(id, user)
}

/// GET /users/{id}/cache — the worker is free: two GETs go out at once on a
/// multiplexed connection (by default the one connection every request
/// shares; with `--redis-client pool` or `deadpool-redis`, one checked out
/// of a pool) and the task awaits both (Mono.zip). On a miss, the user is
/// read through the Postgres driver and both keys are set (cache-aside). Twin:
/// `user_cache`, whose pool thread sends the GETs one after the other.
pub(crate) async fn user_cache(State(state): State<AppState>, PathId(id): PathId) -> Answer {
    let timeout = state.acquire_timeout();
    let prefix = &state.settings.common.redis_key_prefix;
    if let Some(cached) = crate::cache::get_cached_user(&state.cache, prefix, id, timeout).await? {
        return Ok(json(&cached));
    }
    let Some(user) = state.db.find_user(id).await? else {
        return Err(ApiError::user_not_found(id).into());
    };
    let cached = CachedUser {
        name: user.name,
        email: user.email,
    };
    crate::cache::set_cached_user(&state.cache, prefix, id, &cached, timeout).await?;
    Ok(json(&cached))
}

/// GET /users/{id}/cache/blocking — the worker BLOCKS on the sync redis
/// client, one GET after the other (a blocking RedisTemplate called on the
/// event loop); on a miss it also blocks on the sync Postgres lookup and the
/// sync SETs. Twin: `user_cache`.
pub(crate) async fn user_cache_blocking(
    State(state): State<AppState>,
    PathId(id): PathId,
) -> Answer {
    let prefix = &state.settings.common.redis_key_prefix;
    if let Some(cached) = crate::cache::get_cached_user_sync(&state.sync_cache, prefix, id)? {
        return Ok(json(&cached));
    }
    let Some(user) = state.sync_db.find_user_blocking_the_caller(id)? else {
        return Err(ApiError::user_not_found(id).into());
    };
    let cached = CachedUser {
        name: user.name,
        email: user.email,
    };
    crate::cache::set_cached_user_sync(&state.sync_cache, prefix, id, &cached)?;
    Ok(json(&cached))
}

/// GET /posts/{id} — the worker is free: the task waits on a tokio timer for
/// the slow "downstream call" (Mono.delay). Twin: `post`, whose thread sleeps.
pub(crate) async fn post(PathId(id): PathId) -> Answer {
    tokio::time::sleep(POST_DELAY).await;
    Ok(json(&post_after_delay(id)?))
}

/// GET /posts/{id}/blocking — the worker SLEEPS (std::thread::sleep): nothing
/// else runs on it for 300 ms (Thread.sleep on the event loop). Twin: `post`.
pub(crate) async fn post_blocking(PathId(id): PathId) -> Answer {
    // Counted by the stall detector as a blocking call on a worker (crate::blocking_calls).
    blocking_calls::mark(BlockingCall::ThreadSleep);
    std::thread::sleep(POST_DELAY);
    Ok(json(&post_after_delay(id)?))
}

/// POST /echo — the worker reads the body (awaiting the socket), parses and
/// writes JSON (seed 003). Order of checks, as on the twin `echo`: the body
/// was checked whole before routing (its framing, a declared or chunked
/// length over the limit: 413, its deadline: 408, by crate::scanned_io, as
/// the blocking server reads a body before routing), then Content-Type
/// (415), the length while reading (413), the JSON (400).
///
/// crate::scanned_io hands hyper a request only once its body is whole, so
/// the limit and the deadline here are a second guard, for a body that
/// reached hyper some other way: the whole body must arrive within
/// `--body-read-timeout-ms` of the request reaching this handler, else the
/// contract's 408 and the connection is closed, as on the blocking server
/// (crates/blocking-server/src/http/read.rs).
pub(crate) async fn echo(State(state): State<AppState>, request: Request) -> Answer {
    let json_body = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(is_json_content_type);
    if !json_body {
        return Err(ApiError::unsupported_media_type().into());
    }
    let body: Body = request.into_body();
    let read = Limited::new(body, MAX_BODY_BYTES).collect();
    let bytes = match tokio::time::timeout(state.settings.common.body_read_timeout(), read).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return Err(ApiError::payload_too_large().into())
        }
        // The client went away or sent a broken chunked body.
        Ok(Err(e)) => {
            return Err(
                ApiError::bad_request(format!("could not read the request body: {e}")).into(),
            )
        }
        Err(_deadline) => {
            state.counters.body_timed_out();
            return Ok(body_timeout());
        }
    };
    let answer = EchoRequest::from_json(&bytes)?.answer()?;
    Ok(json(&answer))
}

/// The contract's 408 for a body past its deadline, with `Connection:
/// close`: hyper then closes the connection once the answer is written
/// instead of waiting for the rest of a body nobody will read.
fn body_timeout() -> Response {
    let mut response = AppError::from(ApiError::body_timeout()).into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Unknown path: the contract's 404.
pub(crate) async fn no_route() -> AppError {
    ApiError::no_route().into()
}

/// Known path, wrong method: the contract's 405. axum adds the `Allow` header
/// listing the path's methods.
pub(crate) async fn method_not_allowed() -> AppError {
    ApiError::method_not_allowed().into()
}
