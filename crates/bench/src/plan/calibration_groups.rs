//! The calibration groups: each Java server beside its Rust twin under the
//! same load and rounds, so that a Java reader can check the analogy the
//! project rests on. Embedded Tomcat beside the blocking server, Netty
//! beside the async server, on /health, the /posts/1 sweep and /users/1;
//! Tomcat on virtual threads beside them where a JDK 21 or later runs it.
//! Pure data; bench starts the Java servers like its own
//! ([`crate::servers::java`]).

use super::matrix::{col, Group, Network, DB, NONE};
use bench_model::{ColumnId, GroupId, JavaServer, Target};

const TOMCAT: Target = Target::Java(JavaServer::Tomcat);
const TOMCAT_VIRTUAL: Target = Target::Java(JavaServer::TomcatVirtual);
const NETTY: Target = Target::Java(JavaServer::Netty);

/// /health on each: the cost of a request itself.
pub(super) fn calibration_health_group() -> Group {
    use ColumnId as C;
    Group {
        id: GroupId::CalibrationHealth,
        title: "Calibration, /health: Tomcat and Netty beside our twins",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingHealthCalibration, Target::Blocking, "/health"),
            col(C::TomcatHealth, TOMCAT, "/health"),
            col(C::TomcatVirtualHealth, TOMCAT_VIRTUAL, "/health"),
            col(C::AsyncHealthCalibration, Target::Async, "/health"),
            col(C::NettyHealth, NETTY, "/health"),
        ],
        cold_start_probe: vec![],
    }
}

/// The concurrency sweep on the 300-ms route: Little's law's cap on both
/// thread pools, and both event loops past it.
pub(super) fn calibration_posts_group() -> Group {
    use ColumnId as C;
    Group {
        id: GroupId::CalibrationPosts,
        title:
            "Calibration, concurrency sweep on /posts/1 (300 ms): Tomcat and Netty beside our twins",
        needs: NONE,
        network: Network::Local,
        columns: vec![
            col(C::BlockingPostsCalibration, Target::Blocking, "/posts/1"),
            col(C::TomcatPosts, TOMCAT, "/posts/1"),
            col(C::TomcatVirtualPosts, TOMCAT_VIRTUAL, "/posts/1"),
            col(C::AsyncPostsCalibration, Target::Async, "/posts/1"),
            col(C::NettyPosts, NETTY, "/posts/1"),
        ],
        cold_start_probe: vec![],
    }
}

/// The database read: JDBC through HikariCP beside our sync driver's pool
/// of the same size.
pub(super) fn calibration_users_group() -> Group {
    use ColumnId as C;
    Group {
        id: GroupId::CalibrationUsers,
        title: "Calibration, /users/1: Tomcat with JDBC beside our blocking server",
        needs: DB,
        network: Network::Local,
        columns: vec![
            col(C::BlockingUsersCalibration, Target::Blocking, "/users/1"),
            col(C::TomcatUsers, TOMCAT, "/users/1"),
            col(C::TomcatVirtualUsers, TOMCAT_VIRTUAL, "/users/1"),
        ],
        cold_start_probe: vec![],
    }
}
