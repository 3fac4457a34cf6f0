//! The exact text of `/metrics` for fixed figures: the types, help texts,
//! label sets and buckets every server mode serves.

use std::time::Duration;

use super::*;

fn counters_with_fixed_observations() -> RequestCounters {
    let c = RequestCounters::default();
    for (route, method, status, micros) in [
        ("/health", "GET", 200, 80),
        ("/health", "GET", 200, 300),
        ("/echo", "POST", 408, 10_000_000),
    ] {
        c.started();
        c.finished(route, method, status, Duration::from_micros(micros));
    }
    c.body_timed_out();
    c.started();
    c
}

/// The snapshot the exact-text test renders.
fn fixed_snapshot() -> MetricsSnapshot {
    MetricsSnapshot {
        server: "async",
        process: Some(ProcessGauges {
            os_threads: 5,
            rss_bytes: 1024,
            cpu_seconds: 1.5,
            open_fds: 12,
            max_fds: Some(1024),
            start_time_seconds: 1_764_633_600.25,
        }),
        requests: counters_with_fixed_observations().read(),
        pools: vec![PoolGauges {
            pool: "postgres",
            max_size: 10,
            size: 2,
            idle: 1,
            waiters: None,
            waits: None,
        }],
    }
}

/// The histogram lines of [`fixed_snapshot`]'s requests.
fn expected_histogram() -> String {
    let health = "application=\"async\",error=\"none\",method=\"GET\",outcome=\"SUCCESS\",\
                  status=\"200\",uri=\"/health\"";
    let echo = "application=\"async\",error=\"RequestTimeout\",method=\"POST\",\
                outcome=\"CLIENT_ERROR\",status=\"408\",uri=\"/echo\"";
    let mut histogram = String::new();
    // /health: 80 us and 300 us; /echo: exactly 10 s, the last bound.
    let health_counts = [1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2];
    let echo_counts = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1];
    let les = [
        "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
        "0.25", "0.5", "1", "2.5", "5", "10", "+Inf",
    ];
    for (labels, counts, count, sum) in [
        (echo, echo_counts, 1, "10.000000000"),
        (health, health_counts, 2, "0.000380000"),
    ] {
        for (le, n) in les.iter().zip(counts) {
            histogram.push_str(&format!(
                "http_server_requests_seconds_bucket{{{labels},le=\"{le}\"}} {n}\n"
            ));
        }
        histogram.push_str(&format!(
            "http_server_requests_seconds_count{{{labels}}} {count}\n\
             http_server_requests_seconds_sum{{{labels}}} {sum}\n"
        ));
    }
    histogram
}

#[test]
fn render_is_prometheus_text() {
    let text = render(&fixed_snapshot());
    let histogram = expected_histogram();
    let expected = format!(
        "\
# HELP process_threads Number of OS threads in the process.
# TYPE process_threads gauge
process_threads{{server=\"async\"}} 5
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes{{server=\"async\"}} 1024
# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total{{server=\"async\"}} 1.500
# HELP process_open_fds Number of open file descriptors.
# TYPE process_open_fds gauge
process_open_fds{{server=\"async\"}} 12
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds{{server=\"async\"}} 1764633600.25
# HELP process_max_fds Maximum number of open file descriptors.
# TYPE process_max_fds gauge
process_max_fds{{server=\"async\"}} 1024
# HELP http_requests_in_flight Requests being handled now.
# TYPE http_requests_in_flight gauge
http_requests_in_flight{{server=\"async\"}} 1
# HELP http_requests_total Requests answered, by route and status.
# TYPE http_requests_total counter
http_requests_total{{server=\"async\",route=\"/echo\",status=\"408\"}} 1
http_requests_total{{server=\"async\",route=\"/health\",status=\"200\"}} 2
# HELP http_server_requests_seconds Requests by route template, method and status: time from the end of the head to the answer.
# TYPE http_server_requests_seconds histogram
{histogram}\
# HELP http_request_body_timeouts_total Requests answered 408 because their body did not arrive within --body-read-timeout-ms of the end of their head.
# TYPE http_request_body_timeouts_total counter
http_request_body_timeouts_total{{server=\"async\"}} 1
# HELP pool_max_connections Configured maximum size of the pool.
# TYPE pool_max_connections gauge
pool_max_connections{{server=\"async\",pool=\"postgres\"}} 10
# HELP pool_connections Connections open now, in use or idle.
# TYPE pool_connections gauge
pool_connections{{server=\"async\",pool=\"postgres\"}} 2
# HELP pool_idle_connections Idle connections.
# TYPE pool_idle_connections gauge
pool_idle_connections{{server=\"async\",pool=\"postgres\"}} 1
# HELP pool_waiters Requests waiting for a connection.
# TYPE pool_waiters gauge
"
    );
    assert_eq!(text, expected);
}

#[test]
fn without_proc_the_process_metrics_are_left_out_and_the_rest_stays() {
    let text = render(&MetricsSnapshot {
        server: "blocking",
        process: None,
        requests: counters_with_fixed_observations().read(),
        pools: vec![],
    });
    assert!(!text.contains("process_"), "{text}");
    assert!(text.contains("http_requests_in_flight{server=\"blocking\"} 1\n"));
    assert!(
        text.contains(
            "http_requests_total{server=\"blocking\",route=\"/health\",status=\"200\"} 2\n"
        ),
        "{text}"
    );
}

#[test]
fn an_unlimited_open_file_limit_is_not_shown() {
    let text = render(&MetricsSnapshot {
        server: "blocking",
        process: Some(ProcessGauges {
            os_threads: 1,
            rss_bytes: 1,
            cpu_seconds: 0.0,
            open_fds: 3,
            max_fds: None,
            start_time_seconds: 1.0,
        }),
        requests: RequestCounters::default().read(),
        pools: vec![],
    });
    assert!(!text.contains("process_max_fds"), "{text}");
    assert!(
        text.contains("process_open_fds{server=\"blocking\"} 3\n"),
        "{text}"
    );
}
