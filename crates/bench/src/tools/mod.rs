//! bench and the external load tools: the matrix written as Locust, k6 and
//! JMeter tests ([`export`]), a tool's command run while its server is
//! sampled ([`watch`]), and the tool's results read back into a run
//! ([`import`]).

pub mod export;
pub mod import;
pub mod watch;
