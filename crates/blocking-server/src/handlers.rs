//! The handlers of the blocking server: each runs on a handler thread and
//! blocks it until its answer is ready. [`respond`] routes a request, runs its
//! handler, counts and times it, and turns errors into the contract's error
//! answer.
//!
//! Each handler names its twin in crates/async-server/src/handlers.rs and says
//! what this thread does while it waits; that is the whole lesson.
//!
//! The same handlers run on virtual threads (`--threads virtual`,
//! crate::virtual_threads): a coroutine instead of a handler thread. Two
//! seams carry the difference, and nothing else here changes: the executor
//! (crate::executor), whose `Waits` each handler is handed and through
//! which alone it waits ("sleep 300 ms": a platform thread sleeps, a
//! coroutine parks) or blocks ("make this call that holds the thread":
//! on a carrier, marked for the pinning detector, since coroutines are not
//! preempted); and the clients behind `state.driver` (crate::driver:
//! `pinning` blocks the thread, `yielding` parks the coroutine), which take
//! the same `Waits`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use contract::model::{to_json, CachedUser, CpuResult, EchoRequest, Health};
use contract::params::{is_json_content_type, parse_cpu_n, parse_path_id};
use contract::posts::{post_after_delay, POST_DELAY};
use contract::routes::{Route, UNMATCHED};
use contract::ApiError;

use server_metrics::blocking_calls::{mark, BlockingCall};

use crate::executor::Waits;
use crate::http::{Refused, Request, Response};
use crate::router::{route, Routing};
use crate::AppState;
use server_support::sync_postgres::DbError;
use server_support::sync_redis::CacheError;

/// One request in, one response out, on the calling handler thread; the
/// answer is counted under its route, method and status, and timed from
/// the end of the head (`http_server_requests_seconds`).
pub(crate) fn respond(state: &AppState, incoming: Result<&Request, Refused>) -> Response {
    state.counters.started();
    let request = match incoming {
        Ok(request) => request,
        Err(refused) => return refuse(state, &refused),
    };
    let routing = route(&request.method, &request.path);
    let label = routing.label();
    let result = match routing {
        Routing::Matched { route, id } => {
            // A bug in a handler answers 500 and keeps the thread, as Tomcat
            // does with an exception, instead of shrinking the pool by one.
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                state
                    .executor
                    .run(label, |waits| run(state, waits, route, id, request))
            }));
            outcome.unwrap_or_else(|_| {
                tracing::error!(route = label, "handler panicked");
                Err(ApiError::internal())
            })
        }
        Routing::WrongMethod { route } => {
            let mut response = Response::error(&ApiError::method_not_allowed());
            response.allow = Some(route.spec().allow());
            Ok(response)
        }
        Routing::NoRoute => Err(ApiError::no_route()),
    };
    let response = result.unwrap_or_else(|e| Response::error(&e));
    let elapsed = request.head_at.elapsed();
    state
        .counters
        .finished(label, &request.method, response.status, elapsed);
    if let (Some(pool), Some(wait)) = (state.executor.handler_pool(), request.queue_wait) {
        pool.queue_waits.record(label, wait);
    }
    response
}

/// A request refused while it was being read (431, 413, 408, 400): counted
/// under its route when its head had been read (a refused body), else as
/// unmatched with no time taken; a body past its deadline is counted apart
/// too. Twin: the async server counts its 408 in `echo`
/// (crates/async-server/src/handlers.rs).
fn refuse(state: &AppState, refused: &Refused) -> Response {
    let (label, method, elapsed) = match &refused.head {
        Some(head) => {
            let label = route(&head.method, &head.path).label();
            (label, head.method.as_str(), head.at.elapsed())
        }
        None => (UNMATCHED, "", Duration::ZERO),
    };
    if refused.is_body_timeout() {
        state.counters.body_timed_out();
    }
    state
        .counters
        .finished(label, method, refused.error.status(), elapsed);
    Response::error(&refused.error)
}

/// The route's handler, with the request's `Waits` (crate::executor), and
/// the id of a route that has one, decided once by the contract's rule
/// (`contract::params::parse_path_id`) from the raw segment the router
/// found. One arm per route of the contract's table: a route added there
/// does not compile until it is answered here. Twin: `add` in
/// crates/async-server/src/app.rs, and its `PathId`.
fn run(
    state: &AppState,
    waits: &Waits<'_>,
    route: Route,
    raw_id: Option<&str>,
    request: &Request,
) -> Result<Response, ApiError> {
    let id = || parse_path_id(raw_id.unwrap_or_default());
    match route {
        Route::Health => Ok(health()),
        Route::Cpu => cpu(waits, request.query.as_deref()),
        Route::User => user(state, waits, id()?),
        Route::UserCache => user_cache(state, waits, id()?),
        Route::Post => post(waits, id()?),
        Route::Echo => echo(request),
        Route::Metrics => Ok(metrics(state)),
        // The async server's variants (the table's `Servers::AsyncOnly`):
        // the router never brings them here, and this server has no route
        // for them.
        Route::CpuSpawnBlocking
        | Route::CpuRayon
        | Route::UserBlocking
        | Route::UserSpawnBlocking
        | Route::UserCacheBlocking
        | Route::PostBlocking => Err(ApiError::no_route()),
    }
}

/// `GET /health`: answers at once. Twin: `health`.
fn health() -> Response {
    Response::json(to_json(&Health::ok()))
}

/// `GET /cpu`: the thread computes the sum itself, busy until done (Spring
/// MVC's CPU-bound test); on virtual threads, the carrier, which runs no
/// other coroutine meanwhile. Twins: `cpu` (on the event-loop worker),
/// `cpu_spawn_blocking`, `cpu_rayon`.
fn cpu(waits: &Waits<'_>, query: Option<&str>) -> Result<Response, ApiError> {
    let n = parse_cpu_n(query)?;
    let result = waits.blocking(|| {
        mark(BlockingCall::CpuLoop);
        contract::workload::sqrt_sum(n)
    });
    Ok(Response::json(to_json(&CpuResult { n, result })))
}

/// `GET /users/{id}`: the thread waits for a pooled connection, then blocks
/// on the socket until Postgres answers (MVC + JDBC). Twin: `user` (sqlx; the
/// worker thread serves other requests meanwhile).
fn user(state: &AppState, waits: &Waits<'_>, id: i64) -> Result<Response, ApiError> {
    let user = load_user(state, waits, id)?.ok_or_else(|| ApiError::user_not_found(id))?;
    Ok(Response::json(to_json(&user)))
}

/// `GET /users/{id}/cache`: two Redis GETs one after the other, the thread
/// blocked for each round trip; on a miss, the user from Postgres, then both
/// keys set (cache-aside). With the shared connection (the default, Lettuce's)
/// the thread queues each GET on the one connection and sleeps until the
/// event loop hands it its own reply; with `--redis-client pool` (Jedis') it
/// checks a connection out and blocks in `read` on that socket. Twin:
/// `user_cache` (both GETs at once, like Mono.zip).
fn user_cache(state: &AppState, waits: &Waits<'_>, id: i64) -> Result<Response, ApiError> {
    let prefix = state.key_prefix.as_str();
    let mut conn = state.driver.cache(waits).map_err(cache_error)?;
    let (name, email) = conn
        .get_user_fields(waits, prefix, id)
        .map_err(cache_error)?;
    if let (Some(name), Some(email)) = (name, email) {
        return Ok(Response::json(to_json(&CachedUser { name, email })));
    }
    // A miss: the database is the source of truth, and it heals the cache.
    let user = load_user(state, waits, id)?.ok_or_else(|| ApiError::user_not_found(id))?;
    conn.set_user_fields(waits, prefix, id, (&user.name, &user.email))
        .map_err(cache_error)?;
    Ok(Response::json(to_json(&CachedUser {
        name: user.name,
        email: user.email,
    })))
}

/// `GET /posts/{id}`: the thread sleeps 300 ms (a slow downstream call), held
/// the whole time (MVC's Thread.sleep). On virtual threads the coroutine
/// parks for 300 ms and its carrier serves others (Thread.sleep on a
/// virtual thread). Twin: `post` (a timer; the worker is free).
fn post(waits: &Waits<'_>, id: i64) -> Result<Response, ApiError> {
    waits.sleep(POST_DELAY);
    let post = post_after_delay(id)?;
    Ok(Response::json(to_json(&post)))
}

/// `POST /echo`: parses and writes JSON; the body was read (and its size
/// checked) by the connector. Twin: `echo`.
fn echo(request: &Request) -> Result<Response, ApiError> {
    if !request
        .content_type
        .as_deref()
        .is_some_and(is_json_content_type)
    {
        return Err(ApiError::unsupported_media_type());
    }
    let answer = EchoRequest::from_json(&request.body)?.answer()?;
    Ok(Response::json(to_json(&answer)))
}

/// `GET /metrics`: reads `/proc` and the counters. Twin: `metrics`.
fn metrics(state: &AppState) -> Response {
    Response {
        status: 200,
        content_type: server_metrics::metrics::CONTENT_TYPE,
        body: crate::metrics::render_metrics(state).into_bytes(),
        allow: None,
    }
}

/// The user with this id, through a pooled connection and the prepared
/// statement. Waits at most the acquire timeout for a connection, and as long
/// again for the answer.
fn load_user(
    state: &AppState,
    waits: &Waits<'_>,
    id: i64,
) -> Result<Option<contract::model::User>, ApiError> {
    let mut conn = state.driver.db(waits).map_err(|e| {
        tracing::warn!(error = %e, "no database connection within the acquire timeout");
        ApiError::unavailable("database")
    })?;
    conn.user_by_id(waits, id).map_err(|e| match e {
        DbError::Unavailable(cause) => {
            tracing::warn!(error = %cause, "database unavailable");
            ApiError::unavailable("database")
        }
        DbError::Internal(cause) => {
            tracing::error!(error = %cause, "database query failed");
            ApiError::internal()
        }
    })
}

/// A Redis failure as the client sees it: a value our code cannot read is
/// the contract's `unreadable_answer` (500: Redis answered, its data is our
/// fault; `contract::ApiError::unreadable_answer` says why), anything else
/// the cache being unavailable (503). Twin: `redis_error` in
/// crates/async-server/src/cache.rs.
fn cache_error(error: CacheError) -> ApiError {
    match error {
        CacheError::Unavailable(cause) => {
            tracing::warn!(error = %cause, "cache unavailable");
            ApiError::unavailable("cache")
        }
        CacheError::Unreadable(cause) => {
            tracing::error!(error = %cause, "unreadable cached value");
            ApiError::unreadable_answer()
        }
    }
}
