//! The router: which handler answers which route of the contract
//! (`contract::routes::Route`), the layers around them, and the shared
//! state they reach through `State`.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use contract::routes::Route;
use server_metrics::metrics::RequestCounters;

use crate::db::{AsyncDb, SyncDb};
use crate::lag_probe::LagProbe;
use crate::redis_clients::AsyncRedis;
use crate::route_handler::Routes;
use crate::route_monitors::RouteMonitors;
use crate::settings::Settings;
use crate::{handlers, metrics};
use server_support::sync_redis::RedisPool;

/// What every handler may use, behind one `Arc`: axum clones the state for
/// each request (more than once: the handler and each stateful layer get
/// their own), so a clone must be one reference-count increment, not one per
/// pool. Cloning nine handles per request cost 7% of the server's CPU on
/// `/health` (perf, wrk -c50). Fields are reached through `Deref`.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The pools, settings and counters the handlers share.
pub struct Shared {
    pub(crate) settings: Arc<Settings>,
    /// The non-blocking Postgres driver `--postgres-driver` picked (R2DBC's place).
    pub(crate) db: AsyncDb,
    /// The sync driver (the blocking server's, JDBC's place) and its query
    /// threads, for the variants.
    pub(crate) sync_db: SyncDb,
    /// The async Redis client, shared connection or pool (ReactiveRedisTemplate's place).
    pub(crate) cache: Arc<AsyncRedis>,
    /// Sync Redis connections, for /users/{id}/cache/blocking.
    pub(crate) sync_cache: RedisPool,
    /// The CPU pool behind /cpu/rayon (ParallelScheduler's place).
    pub(crate) rayon: Arc<rayon::ThreadPool>,
    /// Leaked, so the per-request code holds a `&'static` rather than an
    /// `Arc` whose count every worker would write (see crate::metrics).
    pub(crate) counters: &'static RequestCounters,
    /// The stall detector: a TaskMonitor per route (none when it is off)...
    pub(crate) route_monitors: Arc<RouteMonitors>,
    /// ...and the event-loop lag probe (`None` when it is off).
    pub(crate) lag_probe: Option<Arc<LagProbe>>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// Creates every pool without connecting (connections open on first use;
    /// start-up then makes the first ones) and starts the rayon pool and the
    /// sync query threads. Must run inside the tokio runtime (sqlx and
    /// deadpool start timers there).
    pub fn new(settings: Settings) -> anyhow::Result<Self> {
        let common = &settings.common;
        let db = AsyncDb::new(&settings)?;
        let sync_db = SyncDb::start(
            crate::db::connect_sync_pool(common)?,
            common.db_pool_size as usize,
            common.acquire_timeout(),
        )?;
        let cache = Arc::new(AsyncRedis::new(settings.redis_client, common)?);
        let sync_cache = crate::cache::connect_sync_pool(common)?;
        let rayon = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.rayon_threads())
            .thread_name(|i| format!("rayon-cpu-{i}"))
            .build()?;
        let route_monitors = Arc::new(RouteMonitors::new(settings.slow_poll_threshold()));
        let lag_probe = match route_monitors.slow_poll_threshold() {
            Some(_) => Some(Arc::new(LagProbe::new()?)),
            None => None,
        };
        Ok(AppState(Arc::new(Shared {
            settings: Arc::new(settings),
            db,
            sync_db,
            cache,
            sync_cache,
            rayon: Arc::new(rayon),
            counters: Box::leak(Box::default()),
            route_monitors,
            lag_probe,
        })))
    }

    pub(crate) fn acquire_timeout(&self) -> Duration {
        self.settings.common.acquire_timeout()
    }
}

/// Every route of the contract, the async-only variants included, each
/// added from the contract's table (its pattern and method; `GET` also
/// answers HEAD, without a body). Around each handler, in order: the
/// request counter, the size limits and the route's id, then the panic
/// guard and the route's stall-detector monitor (crate::route_handler).
pub fn app(state: AppState) -> Router {
    // Each route's handler runs under its own monitor of the stall detector
    // (crate::route_monitors), found here once, not per request.
    Route::ALL
        .iter()
        .fold(Routes::new(&state.route_monitors), |routes, &route| {
            add(routes, route)
        })
        .done()
        .with_state(state)
}

/// `route`'s handler, added to `routes`. One arm per route of the
/// contract's table: a route added there does not compile until it is
/// answered here. Twin: `run` in crates/blocking-server/src/handlers.rs.
fn add(routes: Routes<'_>, route: Route) -> Routes<'_> {
    match route {
        Route::Health => routes.add(route, handlers::health),
        Route::Cpu => routes.add(route, handlers::cpu),
        Route::CpuSpawnBlocking => routes.add(route, handlers::cpu_spawn_blocking),
        Route::CpuRayon => routes.add(route, handlers::cpu_rayon),
        Route::User => routes.add(route, handlers::user),
        Route::UserBlocking => routes.add(route, handlers::user_blocking),
        Route::UserSpawnBlocking => routes.add(route, handlers::user_spawn_blocking),
        Route::UserCache => routes.add(route, handlers::user_cache),
        Route::UserCacheBlocking => routes.add(route, handlers::user_cache_blocking),
        Route::Post => routes.add(route, handlers::post),
        Route::PostBlocking => routes.add(route, handlers::post_blocking),
        Route::Echo => routes.add(route, handlers::echo),
        Route::Metrics => routes.add(route, metrics::metrics),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use clap::Parser as _;
    use contract::routes::ROUTES;
    use tower::ServiceExt as _;

    /// The router and the contract's table list the same routes: each pattern
    /// asked with a method it does not serve gets 405 (the path is routed),
    /// never 404. Pools are lazy, so nothing connects.
    #[tokio::test]
    async fn every_contract_route_is_routed_here() {
        let settings = Settings::try_parse_from(["async-server"]).unwrap();
        let router = app(AppState::new(settings).unwrap());
        for route in ROUTES {
            let path = route.pattern.replace("{id}", "1");
            let request = Request::builder()
                .method("PATCH")
                .uri(&path)
                .body(Body::empty())
                .unwrap();
            let response = router.clone().oneshot(request).await.unwrap();
            assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{path}");
        }
    }

    /// Every route of the table has its own monitor, and a request is timed
    /// by its route's alone: after one GET /health (which connects to
    /// nothing), only /health's monitor has counted a poll.
    #[tokio::test]
    async fn each_route_is_timed_by_its_own_monitor() {
        let settings = Settings::try_parse_from(["async-server"]).unwrap();
        let state = AppState::new(settings).unwrap();
        let monitors = state.route_monitors.clone();
        let router = app(state);
        let request = Request::builder()
            .uri("/health")
            .body(Body::empty())
            .unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let polled: Vec<(&str, u64)> = monitors
            .totals()
            .map(|(route, totals)| (route, totals.polls))
            .filter(|(_, polls)| *polls > 0)
            .collect();
        assert_eq!(polled, [("/health", 1)]);
        assert_eq!(monitors.totals().count(), ROUTES.len());
    }
}
