//! Which column is a model's cell: the one that does what Spring Boot does
//! by default, since the reader is choosing between Spring MVC, WebFlux
//! and virtual threads as Spring Boot ships them. MVC is the thread pool
//! with the sync driver (JDBC's analogue) in a pool of HikariCP's size,
//! behind our NIO connector (Tomcat's), and on Redis the blocking server's
//! default client (`blocking-cache`: Spring Boot's is Lettuce's one shared
//! connection, whose shape the blocking server's `--redis-client shared`
//! has); WebFlux the event loop with
//! deadpool-postgres (r2dbc-pool's exclusive checkout, validated without a
//! round trip) and its shared Redis connection (Lettuce's), CPU work run
//! on the loop itself as a handler runs it without a scheduler; virtual
//! threads MVC's code on them, with the driver that yields: a 2026 Spring
//! Boot on Java 21 with pgjdbc 42.6 or later and HikariCP waits for
//! Postgres in `ReentrantLock`s and socket reads, which unmount, and on
//! Java 24 or later even a monitor does. The best variant the run has
//! beyond the default (the pipelined driver, say) is shown beside it,
//! marked as beyond Spring's defaults.
//!
//! A run that lacks a default's column (saved before it existed) shows
//! the model's best variant that does not block by design, unmarked, as
//! the matrix did before.

use bench_model::{ColumnId as C, GroupId};

use super::{better, Entry, Figure, Model};

/// The column of each model's Spring default in a workload's group, in
/// [`Model::ALL`]'s order.
const DEFAULTS: &[(GroupId, [C; 3])] = &[
    (GroupId::Cpu, [C::BlockingCpu, C::AsyncCpu, C::VirtualCpu]),
    (
        GroupId::Database,
        [
            C::BlockingUsers,
            C::AsyncUsersDeadpool,
            C::VirtualYieldingUsers,
        ],
    ),
    (
        GroupId::RemoteDb,
        [
            C::BlockingUsersRemote,
            C::AsyncUsersDeadpoolRemote,
            C::VirtualYieldingUsersRemote,
        ],
    ),
    (
        GroupId::Cache,
        [C::BlockingCache, C::AsyncCache, C::VirtualYieldingCache],
    ),
    (
        GroupId::Slow,
        [C::BlockingPosts, C::AsyncPosts, C::VirtualPosts],
    ),
    (
        GroupId::Baseline,
        [C::BlockingHealth, C::AsyncHealth, C::VirtualHealth],
    ),
    (
        GroupId::Json,
        [C::BlockingEcho, C::AsyncEcho, C::VirtualEcho],
    ),
    (
        GroupId::Ramp,
        [
            C::BlockingUsersRamp,
            C::AsyncUsersDeadpoolRamp,
            C::VirtualYieldingUsersRamp,
        ],
    ),
    (
        GroupId::SweepPosts,
        [
            C::BlockingPostsSweep,
            C::AsyncPostsSweep,
            C::VirtualPostsSweep,
        ],
    ),
    (
        GroupId::Idle,
        [C::BlockingIdle, C::AsyncIdle, C::VirtualIdle],
    ),
];

/// The column of `model`'s Spring default in `group`, if the matrix names one.
pub fn default_column(group: GroupId, model: Model) -> Option<C> {
    let (_, columns) = DEFAULTS.iter().find(|(g, _)| *g == group)?;
    let at = Model::ALL.iter().position(|m| *m == model)?;
    Some(columns[at])
}

/// `model`'s entries of `group` (`mine`) split into what its cell is
/// chosen from, and the variant beyond Spring's defaults shown beside it:
/// the default's column alone (measured or failed) and the best variant
/// that does not block by design when it beats the default by `figure`
/// (or when the default blocks by design, or failed);
/// or, where the run has no default's column, every entry and nothing
/// beside.
pub(super) fn split<'a>(
    group: GroupId,
    model: Model,
    mine: &[&'a Entry],
    figure: Figure,
) -> (Vec<&'a Entry>, Option<&'a Entry>) {
    let default = default_column(group, model).and_then(|id| mine.iter().find(|e| e.id == id));
    let Some(&default) = default else {
        return (mine.to_vec(), None);
    };
    // A default that blocks by design is not ranked: any variant that
    // does not is beyond it.
    let at_default = default
        .measure
        .filter(|_| !default.by_design)
        .map(|m| m.main.median);
    let beyond = mine
        .iter()
        .copied()
        .filter(|e| e.id != default.id && !e.by_design)
        .filter_map(|e| Some((e, e.measure?.main.median)))
        .filter(|(_, m)| at_default.is_none_or(|d| better(figure, *m, d)))
        .fold(None, |best: Option<(&Entry, f64)>, (e, m)| match best {
            Some((_, b)) if !better(figure, m, b) => best,
            _ => Some((e, m)),
        })
        .map(|(e, _)| e);
    (vec![default], beyond)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_has_a_default_in_every_workload_and_it_is_that_models() {
        for w in super::super::workloads::WORKLOADS {
            for model in Model::ALL {
                let id = default_column(w.group, model)
                    .unwrap_or_else(|| panic!("{}: no default for the {}", w.name, model.name()));
                let prefix = match model {
                    Model::ThreadPool => "blocking-",
                    Model::EventLoop => "async-",
                    Model::VirtualThreads => "virtual-",
                };
                assert!(id.as_str().starts_with(prefix), "{}: {id}", w.name);
            }
        }
        // The event loop's database default is deadpool-postgres, never
        // sqlx or the pipelined driver; virtual threads' driver yields.
        assert_eq!(
            default_column(GroupId::RemoteDb, Model::EventLoop),
            Some(C::AsyncUsersDeadpoolRemote)
        );
        assert_eq!(
            default_column(GroupId::Database, Model::VirtualThreads),
            Some(C::VirtualYieldingUsers)
        );
    }
}
