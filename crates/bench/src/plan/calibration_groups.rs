//! The calibration groups: each Java server beside its Rust twin under the
//! same load and rounds, so that a Java reader can check the analogy the
//! project rests on. Embedded Tomcat beside the blocking server, Netty
//! beside the async server, on /health, the /posts/1 sweep and /users/1;
//! Tomcat on virtual threads beside our virtual threads on /health (on
//! Java 21 and 25). The group of the
//! real Loom on a database a round trip away is [`super::loom_groups`].
//! Pure data; bench starts the Java servers like its own
//! ([`crate::servers::java`]).

use super::column::{col, on_java, virt, with_args, Column};
use super::group::{Group, DB, NONE};
use crate::servers::java::JavaRelease;
use bench_model::ColumnId as C;
use bench_model::{ColumnId, Driver, GroupId, JavaServer, Target};

pub(super) const TOMCAT: Target = Target::Java(JavaServer::Tomcat);
const TOMCAT_VIRTUAL: Target = Target::Java(JavaServer::TomcatVirtual);
const NETTY: Target = Target::Java(JavaServer::Netty);

/// `path` on Tomcat with a virtual thread per request, on the pinned
/// runtime of `release`, counting the virtual threads that pin.
pub(super) fn tomcat_virtual(id: ColumnId, release: JavaRelease, path: &'static str) -> Column {
    on_java(release, col(id, TOMCAT_VIRTUAL, path))
}

/// The same without the pin counter (`--no-pin-events`), for a route
/// nothing pins on: JFR's stream and the waits for its hand-over would
/// cost the column's CPU per request and the run's time, to count zeros.
fn tomcat_virtual_uncounted(id: ColumnId, release: JavaRelease, path: &'static str) -> Column {
    let args = (&["--no-pin-events"][..], "no pin counter");
    on_java(release, with_args(id, TOMCAT_VIRTUAL, path, args))
}

/// `path` on our blocking server (`blocking`) and on Tomcat, then the
/// `between` columns, then, given `asynchronous`, on our async server and
/// on Netty.
fn beside_our_twins(
    path: &'static str,
    (blocking, tomcat): (ColumnId, ColumnId),
    between: Vec<Column>,
    asynchronous: Option<(ColumnId, ColumnId)>,
) -> Vec<Column> {
    let mut columns = vec![
        col(blocking, Target::Blocking, path),
        col(tomcat, TOMCAT, path),
    ];
    columns.extend(between);
    if let Some((ours, netty)) = asynchronous {
        columns.extend([col(ours, Target::Async, path), col(netty, NETTY, path)]);
    }
    columns
}

/// /health on each: the cost of a request itself. Virtual threads' twins
/// on both runtimes: nothing pins on /health, so the two differ only by
/// the JVM, and neither counts pins (and our virtual threads' driver is
/// not called: pinning).
pub(super) fn calibration_health_group() -> Group {
    let path = "/health";
    let virtual_threads = vec![
        virt(C::VirtualHealthCalibration, Driver::Pinning, path),
        tomcat_virtual_uncounted(C::TomcatVirtualHealthJava21, JavaRelease::Java21, path),
        tomcat_virtual_uncounted(C::TomcatVirtualHealthJava25, JavaRelease::Java25, path),
    ];
    let columns = beside_our_twins(
        path,
        (C::BlockingHealthCalibration, C::TomcatHealth),
        virtual_threads,
        Some((C::AsyncHealthCalibration, C::NettyHealth)),
    );
    let title = "Calibration, /health: Tomcat and Netty beside our twins";
    Group::local(GroupId::CalibrationHealth, title, NONE, columns)
}

/// The concurrency sweep on the 300-ms route: Little's law's cap on both
/// thread pools, and both event loops past it. (Tomcat on virtual threads
/// is not here: a virtual thread sleeping in `Thread.sleep` parks on any
/// Java from 21 on, as our virtual threads' sweep shows, no finding judged
/// it, and the Loom lesson that needs the real JVM, pinning, is the
/// calibration-loom group's; it was [`C::TomcatVirtualPosts`].)
pub(super) fn calibration_posts_group() -> Group {
    let path = "/posts/1";
    let columns = beside_our_twins(
        path,
        (C::BlockingPostsCalibration, C::TomcatPosts),
        Vec::new(),
        Some((C::AsyncPostsCalibration, C::NettyPosts)),
    );
    let title =
        "Calibration, concurrency sweep on /posts/1 (300 ms): Tomcat and Netty beside our twins";
    Group::local(GroupId::CalibrationPosts, title, NONE, columns)
}

/// The database read: JDBC through HikariCP beside our sync driver's pool
/// of the same size.
pub(super) fn calibration_users_group() -> Group {
    let columns = beside_our_twins(
        "/users/1",
        (C::BlockingUsersCalibration, C::TomcatUsers),
        Vec::new(),
        None,
    );
    let title = "Calibration, /users/1: Tomcat with JDBC beside our blocking server";
    Group::local(GroupId::CalibrationUsers, title, DB, columns)
}
