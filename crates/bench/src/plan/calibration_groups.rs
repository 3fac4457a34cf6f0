//! The calibration groups: each Java server beside its Rust twin under the
//! same load and rounds, so that a Java reader can check the analogy the
//! project rests on. Embedded Tomcat beside the blocking server, Netty
//! beside the async server, on /health, the /posts/1 sweep and /users/1;
//! Tomcat on virtual threads beside them where a JDK 21 or later runs it.
//! Pure data; bench starts the Java servers like its own
//! ([`crate::servers::java`]).

use super::column::{col, Column};
use super::group::{Group, DB, NONE};
use bench_model::ColumnId as C;
use bench_model::{ColumnId, GroupId, JavaServer, Target};

const TOMCAT: Target = Target::Java(JavaServer::Tomcat);
const TOMCAT_VIRTUAL: Target = Target::Java(JavaServer::TomcatVirtual);
const NETTY: Target = Target::Java(JavaServer::Netty);

/// `path` on our blocking server (`blocking`), on Tomcat on platform and
/// on virtual threads, then, given `asynchronous`, on our async server and
/// on Netty.
fn beside_our_twins(
    path: &'static str,
    blocking: ColumnId,
    (tomcat, tomcat_virtual): (ColumnId, ColumnId),
    asynchronous: Option<(ColumnId, ColumnId)>,
) -> Vec<Column> {
    let mut columns = vec![
        col(blocking, Target::Blocking, path),
        col(tomcat, TOMCAT, path),
        col(tomcat_virtual, TOMCAT_VIRTUAL, path),
    ];
    if let Some((ours, netty)) = asynchronous {
        columns.extend([col(ours, Target::Async, path), col(netty, NETTY, path)]);
    }
    columns
}

/// /health on each: the cost of a request itself.
pub(super) fn calibration_health_group() -> Group {
    let columns = beside_our_twins(
        "/health",
        C::BlockingHealthCalibration,
        (C::TomcatHealth, C::TomcatVirtualHealth),
        Some((C::AsyncHealthCalibration, C::NettyHealth)),
    );
    let title = "Calibration, /health: Tomcat and Netty beside our twins";
    Group::local(GroupId::CalibrationHealth, title, NONE, columns)
}

/// The concurrency sweep on the 300-ms route: Little's law's cap on both
/// thread pools, and both event loops past it.
pub(super) fn calibration_posts_group() -> Group {
    let columns = beside_our_twins(
        "/posts/1",
        C::BlockingPostsCalibration,
        (C::TomcatPosts, C::TomcatVirtualPosts),
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
        C::BlockingUsersCalibration,
        (C::TomcatUsers, C::TomcatVirtualUsers),
        None,
    );
    let title = "Calibration, /users/1: Tomcat with JDBC beside our blocking server";
    Group::local(GroupId::CalibrationUsers, title, DB, columns)
}
