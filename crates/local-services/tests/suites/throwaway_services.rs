//! The throwaway path, forced even where services run: both servers start
//! from the installed binaries, answer, and stop on `stop_started_services`.
//! In a process of its own (rusty-fork runs the test binary again for it
//! alone): it sets an environment variable and starts and stops the
//! process-wide services, which every other test of the binary uses.

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use local_services::{postgres, redis, stop_started_services};
use rusty_fork::rusty_fork_test;

fn port_of(url: &str) -> u16 {
    url::Url::parse(url)
        .expect("valid url")
        .port()
        .expect("url has a port")
}

fn answers(port: u16) -> bool {
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&address, Duration::from_millis(500)).is_ok()
}

rusty_fork_test! {
    #[test]
    fn forced_throwaway_services_start_answer_and_stop() {
        // Arrange: only this test runs in this process, so no other thread
        // reads the environment while it changes.
        std::env::set_var("LOCAL_SERVICES_FORCE_THROWAWAY", "1");

        // Act
        let pg = postgres().expect("throwaway postgres");
        let cache = redis().expect("throwaway redis");

        // Assert: both were started here and serve real requests.
        assert!(pg.started_here());
        assert!(cache.started_here());
        let mut admin = postgres::Client::connect(pg.admin_url(), postgres::NoTls).expect("connect");
        let max_connections: String = admin
            .query_one("SHOW max_connections", &[])
            .expect("show")
            .get(0);
        assert_eq!(max_connections, "200");
        drop(admin);
        let database = pg
            .fresh_database()
            .expect("fresh database on the throwaway cluster");
        let mut client = postgres::Client::connect(database.url(), postgres::NoTls).expect("connect");
        let one: i32 = client.query_one("SELECT 1", &[]).expect("query").get(0);
        assert_eq!(one, 1);
        drop(client);
        drop(database);
        let mut connection = redis::Client::open(cache.url())
            .expect("redis url")
            .get_connection()
            .expect("connect redis");
        let pong: String = redis::cmd("PING").query(&mut connection).expect("ping");
        assert_eq!(pong, "PONG");
        drop(connection);
        let (pg_port, redis_port) = (port_of(pg.admin_url()), port_of(cache.url()));
        assert!(answers(pg_port) && answers(redis_port));
        assert_eq!(our_service_dirs().len(), 2, "one directory per server");

        // Act
        stop_started_services();

        // Assert: stop waits for both to exit, so the ports are closed at once.
        assert!(!answers(pg_port), "postgres still answers on {pg_port}");
        assert!(!answers(redis_port), "redis still answers on {redis_port}");
        let ours = our_service_dirs();
        assert!(ours.is_empty(), "directories left behind: {ours:?}");
    }
}

/// Service directories in the temp dir whose owner file names this process.
fn our_service_dirs() -> Vec<std::path::PathBuf> {
    let me = std::process::id().to_string();
    std::fs::read_dir(std::env::temp_dir())
        .expect("read the temp dir")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("local-services-"))
        })
        .filter(|path| {
            std::fs::read_to_string(path.join("owner.pid")).is_ok_and(|pid| pid.trim() == me)
        })
        .collect()
}
