//! The instruments of a measured window: the load itself ([`load`], through
//! the `loadgen` library; an equal-load window's open model,
//! [`open_load`]), where the machine's CPU went ([`cpu_account`]), a
//! server's `/metrics` ([`remote_metrics`]) and its stall detector's
//! figures ([`detector`]), a Java server's JVM ([`jvm_readings`]) and its
//! warm-up until it settles ([`jvm_warm_up`]), the proxy in front of Postgres
//! ([`proxy_stats`]), idle keep-alive connections and what they cost a
//! server ([`idle_connections`], [`idle_cost`]), and the machine and
//! source a run is measured on ([`machine`]).

pub mod cpu_account;
pub mod detector;
pub mod idle_connections;
pub mod idle_cost;
pub mod jvm_readings;
pub mod jvm_warm_up;
pub mod load;
pub mod machine;
pub mod open_load;
pub mod proxy_stats;
pub mod remote_metrics;
