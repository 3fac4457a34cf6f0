//! The calibration groups' part of a run's preparation: the Java servers
//! built before the first group (or the groups skipped, with the line that
//! installs what is missing), Tomcat's virtual-thread columns dropped on a
//! JDK without virtual threads, and the JVM recorded. (The JVM's own warm-up on each fresh Java server is a load
//! like the others: [`crate::measure::load::run_jvm_warm_up`].)

use super::launch::JavaLaunch;
use crate::plan::JVM_WARM_UP_CONNECTIONS;
use crate::plan::{GroupPlan, JavaServer, RunPlan, Target};
use crate::servers::java::{self, JVM_FLAGS};
use bench_model::{JvmSettings, RunSettings, Skipped, SkippedGroup};

/// Whether a group has a column on a Java server.
fn has_java(g: &GroupPlan) -> bool {
    g.group.columns.iter().any(|c| c.target.java().is_some())
}

/// Builds the Java servers with the JDK and jars the plan names when
/// `groups` has a Java column, and records their JVM in `settings`; each
/// is then started with its Rust twin's sizes (as many handler threads, a
/// JDBC pool as large as ours). Without a JDK or a jar, the groups with
/// one are dropped from `groups` and returned as skipped, with one line on
/// stderr that says why and what to install; on a JDK before 21, so are
/// Tomcat's virtual-thread columns.
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
        Err(reason) => {
            let mut skipped = Vec::new();
            groups.retain(|g| {
                if has_java(g) {
                    skipped.push(SkippedGroup {
                        group: Skipped::Group(g.group.id),
                        reason: reason.clone(),
                    });
                }
                !has_java(g)
            });
            let names: Vec<String> = skipped.iter().map(|s| s.group.to_string()).collect();
            eprintln!(
                "bench: skipping {} (they need a JDK and Debian's Tomcat and Netty jars): {reason}",
                names.join(", ")
            );
            return (None, skipped);
        }
    };
    let mut skipped = Vec::new();
    if !servers.jdk.has_virtual_threads() {
        let reason = format!(
            "Tomcat on virtual threads needs a JDK 21 or later, and this one is {} ({}); --java-home can name another",
            servers.jdk.version,
            servers.jdk.home.display()
        );
        for g in groups.iter_mut().map(|g| &mut g.group) {
            let group = g.id;
            g.columns.retain(|c| {
                let on_virtual = c.target == Target::Java(JavaServer::TomcatVirtual);
                if on_virtual {
                    skipped.push(SkippedGroup {
                        group: Skipped::Column(group, c.id),
                        reason: reason.clone(),
                    });
                }
                !on_virtual
            });
        }
        eprintln!("bench: skipping Tomcat's virtual-thread columns: {reason}");
    }
    settings.jvm = Some(JvmSettings {
        version: servers.jdk.version.clone(),
        java: servers.jdk.java.display().to_string(),
        flags: JVM_FLAGS.iter().map(|f| (*f).to_owned()).collect(),
        warm_up_seconds: plan.load.jvm_warm_up.as_secs_f64(),
        warm_up_connections: JVM_WARM_UP_CONNECTIONS,
    });
    let sizes = (settings.blocking_handler_threads, settings.db_pool_size);
    (Some(JavaLaunch { servers, sizes }), skipped)
}
