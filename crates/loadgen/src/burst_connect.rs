//! When a burst opens its connections: a word of the plan that the report
//! keeps ([`crate::plan::LoadModel::Burst`], [`crate::report::Report`]).

use serde::{Deserialize, Serialize};

/// When a burst opens its connections; in the JSON report `"first"` or
/// `"in_request"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BurstConnect {
    /// Burst, connections opened first: every connection is opened, and has
    /// reported, before the requests are released, so the timed window holds
    /// the requests alone, on connections the server has already accepted.
    /// What a load tool with an event loop does with "N requests at once".
    #[default]
    First,
    /// Burst, connect in the request (as JMeter): each request opens its own
    /// connection after the release, as each of JMeter's threads does, so
    /// the connect (and the server's accept) is inside the request's latency
    /// and inside the timed window.
    InRequest,
}
