//! Postgres and Redis for the servers bench starts: found or started by
//! `local-services`, with a throwaway database and key prefix per run.

use super::interrupt::keep_guards;
use crate::plan::GroupPlan;
use bench_model::{Skipped, SkippedGroup};

/// Finds Postgres and Redis and makes a throwaway database and key prefix
/// for the servers bench starts; returns their arguments. Without them, the
/// groups that need them are dropped from `groups` and returned as skipped.
pub(super) fn find_services(
    groups: &mut Vec<GroupPlan>,
) -> anyhow::Result<(Vec<String>, Vec<SkippedGroup>)> {
    eprintln!("bench: finding Postgres and Redis");
    match (local_services::postgres(), local_services::redis()) {
        (Ok(pg), Ok(redis)) => {
            let db = pg.fresh_database()?;
            let prefix = redis.fresh_prefix();
            let args = vec![
                "--database-url".into(),
                db.url().to_owned(),
                "--redis-url".into(),
                redis.url().to_owned(),
                "--redis-key-prefix".into(),
                prefix.as_str().to_owned(),
            ];
            keep_guards((db, prefix));
            Ok((args, Vec::new()))
        }
        (pg, redis) => {
            // Run what needs neither; say what was skipped and what to install.
            let reason = [pg.err(), redis.err()]
                .into_iter()
                .flatten()
                .map(|e| format!("{e:#}"))
                .collect::<Vec<_>>()
                .join("; ");
            let skipped = drop_groups_needing_services(groups, &reason);
            let names: Vec<String> = skipped.iter().map(|s| s.group.to_string()).collect();
            eprintln!(
                "bench: skipping {} (they need Postgres and Redis): {reason}",
                names.join(", ")
            );
            Ok((vec!["--skip-setup".into()], skipped))
        }
    }
}

/// Drops the groups that need Postgres or Redis; returns them as skipped.
fn drop_groups_needing_services(groups: &mut Vec<GroupPlan>, reason: &str) -> Vec<SkippedGroup> {
    let mut skipped = Vec::new();
    groups.retain(|g| {
        let needs_any = g.group.needs.postgres || g.group.needs.redis;
        if needs_any {
            skipped.push(SkippedGroup {
                group: Skipped::Group(g.group.id),
                reason: reason.to_owned(),
            });
        }
        !needs_any
    });
    skipped
}
