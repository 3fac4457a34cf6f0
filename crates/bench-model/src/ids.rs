//! The stable ids of the matrix: groups and columns, spelled in kebab-case
//! in results.json, on the command line and in findings, and the server a
//! column targets.

/// Defines an id enum whose variants print as stable kebab-case strings (the
/// ids in results.json, `--groups` and findings), with `ALL` in report order.
macro_rules! ids {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant,)* }

        impl $name {
            /// Every id, in report order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The id as results.json and the command line spell it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }

            /// The id spelled `text`, if there is one.
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|id| id.as_str() == text)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let text = String::deserialize(d)?;
                $name::parse(&text).ok_or_else(|| {
                    serde::de::Error::custom(format!(
                        "unknown {} {text:?}",
                        stringify!($name)
                    ))
                })
            }
        }
    };
}

ids! {
    /// A group of the matrix: one table of the report.
    GroupId {
        Cpu = "cpu",
        CpuConnectInRequest = "cpu-connect-in-request",
        Database = "database",
        DatabaseConnectInRequest = "database-connect-in-request",
        Cache = "cache",
        Slow = "slow",
        Baseline = "baseline",
        Json = "json",
        Ramp = "ramp",
        Mixed = "mixed",
        Stalls = "stalls",
        Idle = "idle",
        SweepPosts = "sweep-posts",
        SweepUsers = "sweep-users",
        RemoteDb = "remote-db",
        RemoteMixed = "remote-mixed",
        PoolSweep = "pool-sweep",
        CalibrationHealth = "calibration-health",
        CalibrationPosts = "calibration-posts",
        CalibrationUsers = "calibration-users",
        CalibrationLoom = "calibration-loom",
    }
}

ids! {
    /// A column of the matrix: a route on one server. Findings name the
    /// columns they need with these, so a renamed column cannot silently
    /// leave a finding unmeasured.
    ColumnId {
        BlockingCpu = "blocking-cpu",
        AsyncCpu = "async-cpu",
        AsyncCpuRayon = "async-cpu-rayon",
        AsyncCpuSpawnBlocking = "async-cpu-spawn-blocking",
        VirtualCpu = "virtual-cpu",
        BlockingCpuConnect = "blocking-cpu-connect",
        AsyncCpuConnect = "async-cpu-connect",
        AsyncCpuRayonConnect = "async-cpu-rayon-connect",
        AsyncCpuSpawnBlockingConnect = "async-cpu-spawn-blocking-connect",
        VirtualCpuConnect = "virtual-cpu-connect",
        BlockingUsers = "blocking-users",
        BlockingUsersTinyHttp = "blocking-users-tiny-http",
        AsyncUsers = "async-users",
        AsyncUsersDeadpool = "async-users-deadpool",
        AsyncUsersPipelined = "async-users-pipelined",
        AsyncUsersBlocking = "async-users-blocking",
        AsyncUsersSpawnBlocking = "async-users-spawn-blocking",
        VirtualPinningUsers = "virtual-pinning-users",
        VirtualYieldingUsers = "virtual-yielding-users",
        BlockingUsersConnect = "blocking-users-connect",
        BlockingUsersTinyHttpConnect = "blocking-users-tiny-http-connect",
        AsyncUsersConnect = "async-users-connect",
        AsyncUsersDeadpoolConnect = "async-users-deadpool-connect",
        AsyncUsersPipelinedConnect = "async-users-pipelined-connect",
        AsyncUsersBlockingConnect = "async-users-blocking-connect",
        AsyncUsersSpawnBlockingConnect = "async-users-spawn-blocking-connect",
        VirtualPinningUsersConnect = "virtual-pinning-users-connect",
        VirtualYieldingUsersConnect = "virtual-yielding-users-connect",
        BlockingCache = "blocking-cache",
        AsyncCache = "async-cache",
        AsyncCacheDeadpoolRedis = "async-cache-deadpool-redis",
        AsyncCachePool = "async-cache-pool",
        AsyncCacheBlocking = "async-cache-blocking",
        VirtualPinningCache = "virtual-pinning-cache",
        VirtualYieldingCache = "virtual-yielding-cache",
        BlockingPosts = "blocking-posts",
        BlockingPostsTinyHttp = "blocking-posts-tiny-http",
        AsyncPosts = "async-posts",
        AsyncPostsBlocking = "async-posts-blocking",
        VirtualPosts = "virtual-posts",
        BlockingHealth = "blocking-health",
        BlockingHealthTinyHttp = "blocking-health-tiny-http",
        AsyncHealth = "async-health",
        VirtualHealth = "virtual-health",
        BlockingEcho = "blocking-echo",
        AsyncEcho = "async-echo",
        VirtualEcho = "virtual-echo",
        BlockingUsersRamp = "blocking-users-ramp",
        AsyncUsersRamp = "async-users-ramp",
        AsyncUsersDeadpoolRamp = "async-users-deadpool-ramp",
        AsyncUsersPipelinedRamp = "async-users-pipelined-ramp",
        VirtualPinningUsersRamp = "virtual-pinning-users-ramp",
        VirtualYieldingUsersRamp = "virtual-yielding-users-ramp",
        BlockingHealthNextToCpu = "blocking-health-next-to-cpu",
        AsyncHealthNextToCpu = "async-health-next-to-cpu",
        AsyncHealthNextToCpuRayon = "async-health-next-to-cpu-rayon",
        BlockingHealthNextToPosts = "blocking-health-next-to-posts",
        AsyncHealthNextToPostsBlocking = "async-health-next-to-posts-blocking",
        AsyncHealthNextToPosts = "async-health-next-to-posts",
        AsyncHealthNextToUsersBlocking = "async-health-next-to-users-blocking",
        AsyncHealthNextToUsers = "async-health-next-to-users",
        VirtualHealthNextToCpu = "virtual-health-next-to-cpu",
        VirtualHealthNextToPosts = "virtual-health-next-to-posts",
        VirtualPinningHealthNextToUsers = "virtual-pinning-health-next-to-users",
        VirtualYieldingHealthNextToUsers = "virtual-yielding-health-next-to-users",
        AsyncUsersStalls = "async-users-stalls",
        AsyncUsersBlockingStalls = "async-users-blocking-stalls",
        AsyncCacheStalls = "async-cache-stalls",
        AsyncCacheBlockingStalls = "async-cache-blocking-stalls",
        AsyncPostsStalls = "async-posts-stalls",
        AsyncPostsBlockingStalls = "async-posts-blocking-stalls",
        AsyncCpuRayonStalls = "async-cpu-rayon-stalls",
        AsyncCpuStalls = "async-cpu-stalls",
        VirtualPinningUsersStalls = "virtual-pinning-users-stalls",
        VirtualPinningCacheStalls = "virtual-pinning-cache-stalls",
        VirtualPinningPostsStalls = "virtual-pinning-posts-stalls",
        VirtualPinningCpuStalls = "virtual-pinning-cpu-stalls",
        VirtualYieldingUsersStalls = "virtual-yielding-users-stalls",
        VirtualYieldingCacheStalls = "virtual-yielding-cache-stalls",
        BlockingIdle = "blocking-idle",
        BlockingIdleTinyHttp = "blocking-idle-tiny-http",
        AsyncIdle = "async-idle",
        VirtualIdle = "virtual-idle",
        BlockingPostsSweep = "blocking-posts-sweep",
        AsyncPostsSweep = "async-posts-sweep",
        AsyncPostsBlockingSweep = "async-posts-blocking-sweep",
        VirtualPostsSweep = "virtual-posts-sweep",
        BlockingUsersSweep = "blocking-users-sweep",
        AsyncUsersSweep = "async-users-sweep",
        AsyncUsersDeadpoolSweep = "async-users-deadpool-sweep",
        AsyncUsersSpawnBlockingSweep = "async-users-spawn-blocking-sweep",
        VirtualPinningUsersSweep = "virtual-pinning-users-sweep",
        VirtualYieldingUsersSweep = "virtual-yielding-users-sweep",
        BlockingUsersRemote = "blocking-users-remote",
        AsyncUsersRemote = "async-users-remote",
        AsyncUsersDeadpoolRemote = "async-users-deadpool-remote",
        AsyncUsersPipelinedRemote = "async-users-pipelined-remote",
        VirtualPinningUsersRemote = "virtual-pinning-users-remote",
        VirtualYieldingUsersRemote = "virtual-yielding-users-remote",
        BlockingHealthNextToUsersRemote = "blocking-health-next-to-users-remote",
        AsyncHealthNextToUsersRemote = "async-health-next-to-users-remote",
        VirtualPinningHealthNextToUsersRemote = "virtual-pinning-health-next-to-users-remote",
        VirtualYieldingHealthNextToUsersRemote = "virtual-yielding-health-next-to-users-remote",
        BlockingUsersPool2 = "blocking-users-pool-2",
        BlockingUsersPool5 = "blocking-users-pool-5",
        BlockingUsersPool10 = "blocking-users-pool-10",
        BlockingUsersPool20 = "blocking-users-pool-20",
        BlockingUsersPool40 = "blocking-users-pool-40",
        VirtualYieldingUsersPool2 = "virtual-yielding-users-pool-2",
        VirtualYieldingUsersPool5 = "virtual-yielding-users-pool-5",
        VirtualYieldingUsersPool10 = "virtual-yielding-users-pool-10",
        VirtualYieldingUsersPool20 = "virtual-yielding-users-pool-20",
        VirtualYieldingUsersPool40 = "virtual-yielding-users-pool-40",
        AsyncUsersPool2 = "async-users-pool-2",
        AsyncUsersPool5 = "async-users-pool-5",
        AsyncUsersPool10 = "async-users-pool-10",
        AsyncUsersPool20 = "async-users-pool-20",
        AsyncUsersPool40 = "async-users-pool-40",
        AsyncUsersDeadpoolPool2 = "async-users-deadpool-pool-2",
        AsyncUsersDeadpoolPool5 = "async-users-deadpool-pool-5",
        AsyncUsersDeadpoolPool10 = "async-users-deadpool-pool-10",
        AsyncUsersDeadpoolPool20 = "async-users-deadpool-pool-20",
        AsyncUsersDeadpoolPool40 = "async-users-deadpool-pool-40",
        AsyncUsersPipelinedClients1 = "async-users-pipelined-clients-1",
        AsyncUsersPipelinedClients2 = "async-users-pipelined-clients-2",
        AsyncUsersPipelinedClients4 = "async-users-pipelined-clients-4",
        BlockingHealthCalibration = "blocking-health-calibration",
        TomcatHealth = "tomcat-health",
        TomcatVirtualHealth = "tomcat-virtual-health",
        VirtualHealthCalibration = "virtual-health-calibration",
        TomcatVirtualHealthJava21 = "tomcat-virtual-health-java21",
        TomcatVirtualHealthJava25 = "tomcat-virtual-health-java25",
        AsyncHealthCalibration = "async-health-calibration",
        NettyHealth = "netty-health",
        BlockingPostsCalibration = "blocking-posts-calibration",
        TomcatPosts = "tomcat-posts",
        TomcatVirtualPosts = "tomcat-virtual-posts",
        AsyncPostsCalibration = "async-posts-calibration",
        NettyPosts = "netty-posts",
        BlockingUsersCalibration = "blocking-users-calibration",
        TomcatUsers = "tomcat-users",
        TomcatVirtualUsers = "tomcat-virtual-users",
        BlockingUsersLoom = "blocking-users-loom",
        TomcatUsersLoom = "tomcat-users-loom",
        VirtualPinningUsersLoom = "virtual-pinning-users-loom",
        VirtualYieldingUsersLoom = "virtual-yielding-users-loom",
        TomcatVirtualUsersJava21 = "tomcat-virtual-users-java21",
        TomcatVirtualUsersJava25 = "tomcat-virtual-users-java25",
    }
}

impl ColumnId {
    /// Columns the matrix no longer measures, each because another column
    /// teaches its lesson: a saved run may still hold them, and reads and
    /// renders as it was. The pinning driver under the ramp repeats the
    /// database group's pinning driver; virtual threads' /health next to
    /// the slow downstream repeats the sweep's (a sleep parks a
    /// coroutine); the thread pool's and the event loop's /health next to
    /// the remote read repeat the mixed group's (a handler that does not
    /// block delays nobody), where the remote-mixed group's lesson is the
    /// pinning driver's; and that lesson, both virtual-thread drivers'
    /// /health next to /users/1, is the remote-mixed group's, where a
    /// pinned carrier waits a real round trip, not the mixed group's.
    /// The event loop's sqlx under the /users/1 sweep gave way to
    /// deadpool-postgres, WebFlux's default's analogue, since the sweep
    /// compares the models. Tomcat on virtual threads on the JDK that
    /// builds the servers gave way to Tomcat on the pinned Java 21 and 25
    /// runtimes: on /health a column each, and on /users/1 the
    /// calibration-loom group's, with Postgres a round trip away, where a
    /// pinned carrier costs what it costs; on the /posts/1 sweep none (a
    /// sleeping virtual thread parks on every Java from 21 on, as our
    /// virtual threads' sweep shows, and no finding judged it).
    pub const RETIRED: &'static [ColumnId] = &[
        ColumnId::VirtualPinningUsersRamp,
        ColumnId::VirtualHealthNextToPosts,
        ColumnId::BlockingHealthNextToUsersRemote,
        ColumnId::AsyncHealthNextToUsersRemote,
        ColumnId::VirtualPinningHealthNextToUsers,
        ColumnId::VirtualYieldingHealthNextToUsers,
        ColumnId::AsyncUsersSweep,
        ColumnId::TomcatVirtualHealth,
        ColumnId::TomcatVirtualPosts,
        ColumnId::TomcatVirtualUsers,
    ];

    /// Every column the matrix measures, in report order.
    pub fn measured() -> impl Iterator<Item = ColumnId> {
        ColumnId::ALL
            .iter()
            .copied()
            .filter(|id| !ColumnId::RETIRED.contains(id))
    }
}

impl ColumnId {
    /// Seed 000's columns under its burst with every connection opened
    /// first (the cpu and database groups), each with its twin under the
    /// burst as JMeter sent it, each request opening its own connection
    /// (the cpu-connect-in-request and database-connect-in-request groups):
    /// the same route on the same server.
    pub const CONNECT_IN_REQUEST_TWINS: &'static [(ColumnId, ColumnId)] = &[
        (ColumnId::BlockingCpu, ColumnId::BlockingCpuConnect),
        (ColumnId::AsyncCpu, ColumnId::AsyncCpuConnect),
        (ColumnId::AsyncCpuRayon, ColumnId::AsyncCpuRayonConnect),
        (
            ColumnId::AsyncCpuSpawnBlocking,
            ColumnId::AsyncCpuSpawnBlockingConnect,
        ),
        (ColumnId::VirtualCpu, ColumnId::VirtualCpuConnect),
        (ColumnId::BlockingUsers, ColumnId::BlockingUsersConnect),
        (
            ColumnId::BlockingUsersTinyHttp,
            ColumnId::BlockingUsersTinyHttpConnect,
        ),
        (ColumnId::AsyncUsers, ColumnId::AsyncUsersConnect),
        (
            ColumnId::AsyncUsersDeadpool,
            ColumnId::AsyncUsersDeadpoolConnect,
        ),
        (
            ColumnId::AsyncUsersPipelined,
            ColumnId::AsyncUsersPipelinedConnect,
        ),
        (
            ColumnId::AsyncUsersBlocking,
            ColumnId::AsyncUsersBlockingConnect,
        ),
        (
            ColumnId::AsyncUsersSpawnBlocking,
            ColumnId::AsyncUsersSpawnBlockingConnect,
        ),
        (
            ColumnId::VirtualPinningUsers,
            ColumnId::VirtualPinningUsersConnect,
        ),
        (
            ColumnId::VirtualYieldingUsers,
            ColumnId::VirtualYieldingUsersConnect,
        ),
    ];

    /// This column's twin under seed 000's burst as JMeter sent it
    /// ([`ColumnId::CONNECT_IN_REQUEST_TWINS`]), if it has one.
    pub fn connect_in_request_twin(self) -> Option<ColumnId> {
        ColumnId::CONNECT_IN_REQUEST_TWINS
            .iter()
            .find(|(of, _)| *of == self)
            .map(|(_, twin)| *twin)
    }
}

impl GroupId {
    /// The calibration groups: our servers beside Tomcat and Netty, and
    /// beside Tomcat on virtual threads on Java 21 and 25.
    pub const CALIBRATION: [GroupId; 4] = [
        GroupId::CalibrationHealth,
        GroupId::CalibrationPosts,
        GroupId::CalibrationUsers,
        GroupId::CalibrationLoom,
    ];

    /// Whether it is one of [`GroupId::CALIBRATION`].
    pub fn is_calibration(self) -> bool {
        GroupId::CALIBRATION.contains(&self)
    }
}

/// A calibration server: the real Java thing beside one of our twins
/// (`calibration/` in the repository).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JavaServer {
    /// Embedded Tomcat 10.1, NIO, 200 handler threads: the blocking
    /// server's twin (Spring MVC's container).
    Tomcat,
    /// The same Tomcat with a virtual thread per request (`--virtual`,
    /// Java 21 or later): Spring MVC with `spring.threads.virtual.enabled`.
    TomcatVirtual,
    /// Netty 4.1, an event loop per core: the async server's twin
    /// (WebFlux's server).
    Netty,
}

/// Which driver the virtual-thread server's handlers call (`--driver`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Driver {
    /// The sync clients: each call holds its carrier thread (Loom's pinning).
    Pinning,
    /// Coroutine-aware clients: a wait parks the coroutine, not the carrier.
    Yielding,
}

impl Driver {
    /// As `--driver` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Driver::Pinning => "pinning",
            Driver::Yielding => "yielding",
        }
    }
}

/// Which server a column targets; results.json spells it "blocking",
/// "async", "virtual-pinning", "virtual-yielding" or a calibration server's
/// "tomcat", "tomcat-virtual", "netty" (a run saved before virtual threads
/// existed has only the first two, and reads as it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// The blocking server on platform threads (Spring MVC on Tomcat).
    Blocking,
    /// The async server (Spring WebFlux).
    Async,
    /// The blocking server's same handlers on virtual threads
    /// (`--threads virtual`), with this driver.
    Virtual(Driver),
    /// A calibration server, none of ours.
    Java(JavaServer),
}

impl Target {
    /// Every target, in report order.
    pub const ALL: &'static [Target] = &[
        Target::Blocking,
        Target::Async,
        Target::Virtual(Driver::Pinning),
        Target::Virtual(Driver::Yielding),
        Target::Java(JavaServer::Tomcat),
        Target::Java(JavaServer::TomcatVirtual),
        Target::Java(JavaServer::Netty),
    ];

    /// As results.json, labels and log names spell it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Blocking => "blocking",
            Target::Async => "async",
            Target::Virtual(Driver::Pinning) => "virtual-pinning",
            Target::Virtual(Driver::Yielding) => "virtual-yielding",
            Target::Java(JavaServer::Tomcat) => "tomcat",
            Target::Java(JavaServer::TomcatVirtual) => "tomcat-virtual",
            Target::Java(JavaServer::Netty) => "netty",
        }
    }

    /// The target spelled `text`, if there is one.
    pub fn parse(text: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.name() == text)
    }

    /// The calibration server it is, if it is one.
    pub fn java(self) -> Option<JavaServer> {
        match self {
            Target::Java(j) => Some(j),
            _ => None,
        }
    }

    /// Its driver, on virtual threads.
    pub fn driver(self) -> Option<Driver> {
        match self {
            Target::Virtual(d) => Some(d),
            _ => None,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Target {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Target, D::Error> {
        let text = String::deserialize(d)?;
        Target::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown server {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_unknown_ones_do_not_parse() {
        for id in ColumnId::ALL {
            assert_eq!(ColumnId::parse(id.as_str()), Some(*id));
        }
        for id in GroupId::ALL {
            assert_eq!(GroupId::parse(id.as_str()), Some(*id));
        }
        assert_eq!(GroupId::parse("nope"), None);
        assert_eq!(ColumnId::parse("nope"), None);
    }

    #[test]
    fn targets_round_trip_and_old_spellings_still_read() {
        for t in Target::ALL {
            let json = serde_json::to_string(t).unwrap();
            assert_eq!(serde_json::from_str::<Target>(&json).unwrap(), *t);
        }
        // The two spellings of runs saved before virtual threads.
        let old: Vec<Target> = serde_json::from_str(r#"["blocking","async"]"#).unwrap();
        assert_eq!(old, [Target::Blocking, Target::Async]);
        assert_eq!(
            serde_json::to_string(&Target::Virtual(Driver::Yielding)).unwrap(),
            r#""virtual-yielding""#
        );
        assert!(serde_json::from_str::<Target>(r#""virtual""#).is_err());
    }
}
