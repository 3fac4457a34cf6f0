//! The peer of the pipelined driver's measurements: the smallest axum app
//! that serves the contract's `/users/{id}` from a few shared tokio-postgres
//! clients with the query prepared once each, and nothing else (no
//! counters, limits, panic layer, first-head check, stall detector,
//! deadline or bound on the queries in flight), on the same kind of runtime
//! as the async server. What the async server's `--postgres-driver
//! pipelined` serves less than this is what its own layers cost.
//!
//! It reads a database the async server has migrated already:
//!
//!     cargo run --release -p async-server --example minimal_users_pipelined -- \
//!         127.0.0.1:18093 postgres://postgres@127.0.0.1:5432/postgres [clients] [workers]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use contract::model::to_json;
use contract::sql::SELECT_USER_BY_ID;
use contract::ApiError;
use tokio_postgres::{Client, NoTls, Statement};

struct Clients {
    clients: Vec<(Client, Statement)>,
    next: AtomicUsize,
}

/// The user, as the async server's `/users/{id}` answers it (same bytes).
async fn user(State(db): State<Arc<Clients>>, Path(id): Path<i64>) -> Response {
    let turn = db.next.fetch_add(1, Ordering::Relaxed);
    let (client, statement) = &db.clients[turn % db.clients.len()];
    let json = [(header::CONTENT_TYPE, "application/json")];
    match client.query_opt(statement, &[&id]).await {
        Ok(Some(row)) => match server_support::sync_postgres::user_from_row(&row) {
            Ok(user) => (json, to_json(&user)).into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        },
        Ok(None) => {
            let missing = ApiError::user_not_found(id);
            (StatusCode::NOT_FOUND, json, missing.body_json()).into_response()
        }
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let bind = args.next().unwrap_or_else(|| "127.0.0.1:18093".to_owned());
    let url = args
        .next()
        .unwrap_or_else(|| contract::settings::DEFAULT_DATABASE_URL.to_owned());
    let workers = server_settings::cores();
    let clients = args.next().and_then(|c| c.parse().ok()).unwrap_or(workers);
    let workers = args.next().and_then(|w| w.parse().ok()).unwrap_or(workers);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?
        .block_on(async {
            let mut shared = Vec::new();
            for _ in 0..clients {
                let (client, connection) = tokio_postgres::connect(&url, NoTls).await?;
                tokio::spawn(connection);
                let statement = client.prepare(SELECT_USER_BY_ID).await?;
                shared.push((client, statement));
            }
            let state = Arc::new(Clients {
                clients: shared,
                next: AtomicUsize::new(0),
            });
            let listener = tokio::net::TcpListener::bind(&bind).await?;
            eprintln!(
                "minimal_users_pipelined: /users/{{id}} on http://{bind}, {clients} clients, {workers} workers"
            );
            let app = Router::new()
                .route("/users/{id}", get(user))
                .with_state(state);
            axum::serve(listener, app).await?;
            Ok(())
        })
}
