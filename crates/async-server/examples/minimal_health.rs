//! The peer of the stall detector's overhead check: the smallest
//! axum app that serves the contract's `/health` answer, with `axum::serve`
//! and nothing else (no counters, limits, panic layer, first-head check or
//! stall detector), on the same kind of runtime as the async server (a
//! multi-thread tokio runtime, one worker per core unless told).
//!
//! `scripts/detector-overhead.sh` measures it side by side with
//! `async-server --stall-detector on` and `off`:
//!
//!     cargo run --release -p async-server --example minimal_health -- 127.0.0.1:18091 [workers]

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use contract::model::{to_json, Health};

/// The same bytes and content type as the async server's `/health`.
async fn health() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        to_json(&Health::ok()),
    )
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let bind = args.next().unwrap_or_else(|| "127.0.0.1:18091".to_owned());
    let workers = server_settings::threads_or_cores(args.next());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?
        .block_on(async {
            let listener = tokio::net::TcpListener::bind(&bind).await?;
            eprintln!("minimal_health: serving /health on http://{bind} with {workers} workers");
            axum::serve(listener, Router::new().route("/health", get(health))).await
        })
}
