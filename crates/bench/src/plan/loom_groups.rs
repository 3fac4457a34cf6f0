//! The real Loom beside its analogue: Tomcat with a virtual thread per
//! request (Spring MVC with `spring.threads.virtual.enabled`) on Java 21
//! and on Java 25, beside our virtual threads with the driver that pins
//! and the one that yields, and the thread pools of both (Tomcat's 200
//! threads, our blocking server), on `/users/1` with Postgres a round
//! trip away through bench's proxy, as the remote-database group reads it.
//!
//! The lesson is pgjdbc's: before 42.6.0 (Debian's is 42.5.5) it waits
//! for Postgres inside a `synchronized` method, and a virtual thread that
//! parks in a monitor pins its carrier on Java 21, so Tomcat serves what
//! the carriers serve, carriers / round trip, as our pinning driver does;
//! Java 24 unmounts such a thread (JEP 491), and on Java 25 the pool is
//! the queue, pool / round trip, as with our yielding driver. Pure data.

use super::calibration_groups::{tomcat_virtual, TOMCAT};
use super::column::{col, on_java, virt};
use super::group::{Group, BOTH, REMOTE_DB_ROUND_TRIP};
use crate::servers::java::JavaRelease;
use bench_model::ColumnId as C;
use bench_model::{Driver, GroupId, Target};

/// `/users/1` a round trip away ([`REMOTE_DB_ROUND_TRIP`], `--db-latency`)
/// on the thread pools, our two virtual-thread drivers and Tomcat on
/// virtual threads on each runtime. Tomcat on platform threads runs on
/// Java 21 too, so that its pair differs only by the one setting.
pub(super) fn calibration_loom_group() -> Group {
    const USERS: &str = "/users/1";
    let columns = vec![
        col(C::BlockingUsersLoom, Target::Blocking, USERS),
        on_java(JavaRelease::Java21, col(C::TomcatUsersLoom, TOMCAT, USERS)),
        virt(C::VirtualPinningUsersLoom, Driver::Pinning, USERS),
        virt(C::VirtualYieldingUsersLoom, Driver::Yielding, USERS),
        tomcat_virtual(C::TomcatVirtualUsersJava21, JavaRelease::Java21, USERS),
        tomcat_virtual(C::TomcatVirtualUsersJava25, JavaRelease::Java25, USERS),
    ];
    let title = "Calibration, the real Loom: Tomcat on virtual threads on Java 21 and 25 beside our drivers, Postgres a round trip away";
    Group::local(GroupId::CalibrationLoom, title, BOTH, columns).behind(REMOTE_DB_ROUND_TRIP)
}
