//! The peer of the virtual-thread mode's `/health`: the smallest
//! may_minihttp app that serves the contract's `/health` answer, on the same
//! kind of runtime as `blocking-server --threads virtual` (may coroutines on
//! one carrier per core unless told, not pinned to cores), with nothing else
//! (no counters, limits, detector or drain). may_minihttp is may's own HTTP
//! server, written for speed (TechEmpower), so it is the floor our
//! connector's cost is measured against.
//!
//! `scripts/virtual-overhead.sh` measures it side by side with
//! `blocking-server --threads virtual`:
//!
//!     cargo run --release -p blocking-server --example minimal_may_health -- 127.0.0.1:18094 [carriers]

use std::io;

use contract::model::{to_json, Health};
use may_minihttp::{HttpServer, HttpService, Request, Response};

#[derive(Clone)]
struct MinimalHealth {
    body: Vec<u8>,
}

impl HttpService for MinimalHealth {
    fn call(&mut self, request: Request, response: &mut Response) -> io::Result<()> {
        if request.path() == "/health" {
            response.header("Content-Type: application/json");
            response.body_vec(self.body.clone());
        } else {
            response.status_code(404, "Not Found");
        }
        Ok(())
    }
}

fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let bind = args.next().unwrap_or_else(|| "127.0.0.1:18094".to_owned());
    let carriers = server_settings::threads_or_cores(args.next());
    may::config().set_workers(carriers).set_worker_pin(false);
    let server = HttpServer(MinimalHealth {
        body: to_json(&Health::ok()),
    })
    .start(&bind)?;
    eprintln!("minimal_may_health: serving /health on http://{bind} with {carriers} carriers");
    server
        .join()
        .map_err(|_| io::Error::other("the server coroutine panicked"))
}
