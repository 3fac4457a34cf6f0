//! The plan of a run: the main job's request and its profile turned into
//! one value that says everything the run will do, group by group (the
//! load, the rounds, the warm-up, how far Postgres and Redis are, the
//! cold-start probe, a sweep's predicted cap, each column's server
//! arguments), and what it will not do and why. Every rule that turns a
//! flag into a figure is written here once: `--cold` against every
//! warm-up, `--rounds` against a sweep's own rounds, `--db-latency` on the
//! remote groups, a server given by URL against the columns only bench's
//! own can run. [`crate::run`] carries the plan out, and checks there only
//! what needs the machine: that a URL answers, that Postgres, Redis and a
//! JDK are there.

use std::time::Duration;

use bench_model::{ColumnResult, GroupId, GroupResult, LittleCap, RunSettings};
use bench_model::{Skipped, SkippedGroup};

use super::equal_load::{ranked_columns, windows_of, EqualLoadPlan, EQUAL_LOAD_GROUPS, SHARE};
use super::group::{Group, Network};
use super::jvm_warm_up::JvmWarmUp;
use super::loads::Load;
use super::profiles::{ColdStartProbe, PathValues, Profile};
use super::request::{JavaChoice, Request};
use super::servers::{binary, mode_args, ServerPlan};

/// Everything a run will do, and what it will not.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// The profile's name.
    pub profile: &'static str,
    /// The groups to measure, in the matrix's order.
    pub groups: Vec<GroupPlan>,
    /// The groups and columns planning left out, each with why: the ones
    /// the profile has no load for, and the ones a server given by URL
    /// cannot run. (What the machine lacks is found when the run prepares.)
    pub skipped: Vec<SkippedGroup>,
    pub servers: ServerPlan,
    /// The load generator's options for every column.
    pub load: LoadOptions,
    /// The settings results.json records, as far as planning knows them
    /// (the servers given by URL and the JVM are added when they answer).
    pub settings: RunSettings,
    /// Where the calibration servers' JDK and jars are, if a group needs them.
    pub java: JavaChoice,
    /// The longest silence of a run whose stderr is not a terminal, if not
    /// the default.
    pub heartbeat: Option<Duration>,
}

/// One group as the run will measure it.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPlan {
    /// Its columns, and its network with `--db-latency` applied.
    pub group: Group,
    /// Its load, the overrides applied (a sweep's own lead zero with `--cold`).
    pub load: Load,
    /// Column rounds: every column once per round.
    pub rounds: u32,
    /// How long its timed loads warm up before each window; `None` with `--cold`.
    pub warm_up: Option<Duration>,
    /// The cold-start probe after its rounds, if it has probed columns and
    /// the probe has starts.
    pub cold_start: Option<ColdStartProbe>,
    /// A sweep's predicted cap (Little's law) and how it was found, from
    /// the sizes the servers run with.
    pub sweep_cap: Option<(Option<LittleCap>, String)>,
    /// Where the cores decide, its ranked columns again after its rounds,
    /// at one arrival rate ([`super::equal_load`]).
    pub equal_load: Option<EqualLoadPlan>,
    /// Another group whose window is measured first on each column round's
    /// fresh server, in place of this group's warm-up, and kept as that
    /// group's round: seed 000's burst as JMeter sent it, before the burst
    /// with every connection opened first
    /// ([`measure_twins_first`]).
    pub first_window: Option<Box<GroupPlan>>,
}

/// Everything about a run's loads that is not the column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadOptions {
    pub timeout: Duration,
    pub threads: usize,
    /// What the columns' paths name (`/cpu?n=`).
    pub paths: PathValues,
    /// Mixed group: how long the background load runs alone before the
    /// /health probe starts (its warm-up, [`Load::warm_up`]).
    pub mixed_lead: Duration,
    /// The JVM's own warm-up on each fresh Java server (the profile's
    /// [`Profile::jvm_warm_up`]); none with `--cold`.
    pub jvm_warm_up: Option<JvmWarmUp>,
}

impl LoadOptions {
    /// The shortest lead of the mixed group's background (`--cold`): long
    /// enough for its connections to be open before the probe starts.
    pub const MIN_MIXED_LEAD: Duration = Duration::from_millis(100);
}

/// A server started and stopped per column round, and its readings: what
/// the estimate adds to each column round's load.
const ROUND_OVERHEAD: Duration = Duration::from_millis(400);

/// A window of a column that counts pinned virtual threads waits for
/// JFR's hand-over (its count to hold still for 1.3 s) before and after:
/// what the estimate adds to such a column round.
const PINS_HANDED_OVER: Duration = Duration::from_secs(3);

impl RunPlan {
    /// The plan of `request`, or one line saying what is wrong with it.
    pub fn new(request: &Request) -> Result<RunPlan, String> {
        let (mut profile, selected) = request.selection.resolve()?;
        if let Some(n) = request.cold_starts {
            profile.cold_start.cold_starts = n;
        }
        let servers = ServerPlan::new(&request.servers);
        let load = request.load_options(&profile);
        let mut settings = request.settings(&profile, &servers, &load)?;
        let mut groups = Vec::new();
        let mut not_in_profile = Vec::new();
        for group in super::groups() {
            match profile.load(group.id) {
                _ if !selected.contains(&group.id) => {}
                Some(load) => groups.push(request.group_plan(group, load, &profile, &settings)),
                None => not_in_profile.push(SkippedGroup {
                    group: Skipped::Group(group.id),
                    reason: format!(
                        "the {} profile does not run it (its {} columns take minutes; --profile seed does)",
                        profile.name,
                        group.columns.len()
                    ),
                }),
            }
        }
        settings.remote_db_round_trip_ms = groups.iter().find_map(|g| match g.group.network {
            Network::RoundTrip(d) if g.takes_db_latency() => Some(d.as_secs_f64() * 1000.0),
            _ => None,
        });
        let mut skipped = drop_what_given_servers_cannot_run(&mut groups, &servers);
        measure_twins_first(&mut groups);
        skipped.extend(not_in_profile);
        Ok(RunPlan {
            profile: profile.name,
            groups,
            skipped,
            servers,
            load,
            settings,
            java: request.java.clone(),
            heartbeat: request.heartbeat,
        })
    }
}

impl Request {
    /// The warm-up rule, written once: with `--cold` nothing warms up
    /// before a measured window (no warm-up window, no sweep step's lead,
    /// no JVM warm-up, the shortest mixed lead); otherwise one of `length`.
    fn warm(&self, length: Duration) -> Option<Duration> {
        (!self.cold).then_some(length)
    }

    /// The rounds rule: `--rounds`, else a sweep's own (quick's sweeps:
    /// one), else the profile's.
    fn rounds_of(&self, load: &Load, profile: &Profile) -> u32 {
        let own = match load {
            Load::Sweep(sweep) => sweep.rounds,
            _ => None,
        };
        self.rounds.or(own).unwrap_or(profile.rounds)
    }

    /// One group's plan under `load`.
    fn group_plan(
        &self,
        mut group: Group,
        load: &Load,
        profile: &Profile,
        settings: &RunSettings,
    ) -> GroupPlan {
        let mut load = load.clone();
        let mut sweep_cap = None;
        if let Load::Sweep(sweep) = &mut load {
            sweep.warm_up = self.warm(sweep.warm_up).unwrap_or_default();
            sweep_cap = Some(bench_analysis::sweep::cap_for(group.id, settings));
        }
        let takes_db_latency = GroupPlan::DB_LATENCY_GROUPS.contains(&group.id);
        if let (Some(d), Network::RoundTrip(_), true) =
            (self.db_latency, group.network, takes_db_latency)
        {
            group.network = Network::RoundTrip(d);
        }
        let probe = profile.cold_start;
        GroupPlan {
            equal_load: self.equal_load_plan(&group, profile),
            rounds: self.rounds_of(&load, profile),
            warm_up: self.warm(self.warm_up.unwrap_or(profile.warm_up_of(group.id))),
            cold_start: (!group.cold_start_probe.is_empty() && probe.cold_starts > 0)
                .then_some(probe),
            sweep_cap,
            group,
            load,
            first_window: None,
        }
    }

    /// `group`'s equal-load windows, where the cores decide: the profile's
    /// ([`windows_of`]), `--duration` their length, `--warm-up` and
    /// `--cold` their warm-up, `--rounds` their rounds, as for any window.
    fn equal_load_plan(&self, group: &Group, profile: &Profile) -> Option<EqualLoadPlan> {
        if !EQUAL_LOAD_GROUPS.contains(&group.id) {
            return None;
        }
        let own = windows_of(profile.name);
        let warm_up = own.warm_up.unwrap_or(profile.warm_up_of(group.id));
        Some(EqualLoadPlan {
            share: SHARE,
            window: self.selection.loads.duration.unwrap_or(own.window),
            warm_up: self.warm(self.warm_up.unwrap_or(warm_up)),
            rounds: self.rounds.or(own.rounds).unwrap_or(profile.rounds),
            columns: ranked_columns(group),
        })
    }

    /// The load generator's options.
    fn load_options(&self, profile: &Profile) -> LoadOptions {
        LoadOptions {
            timeout: profile.timeout,
            threads: self.loadgen_threads(),
            paths: profile.path_values(),
            mixed_lead: self
                .warm(self.warm_up.unwrap_or(profile.warm_up))
                .map_or(LoadOptions::MIN_MIXED_LEAD, |d| {
                    d.max(LoadOptions::MIN_MIXED_LEAD)
                }),
            jvm_warm_up: (!self.cold).then_some(profile.jvm_warm_up),
        }
    }

    fn loadgen_threads(&self) -> usize {
        self.loadgen_threads.unwrap_or_else(server_settings::cores)
    }

    /// The run's settings as far as planning knows them: the servers'
    /// sizes as they parse their arguments, as if bench started them all.
    fn settings(
        &self,
        profile: &Profile,
        servers: &ServerPlan,
        load: &LoadOptions,
    ) -> Result<RunSettings, String> {
        let s = servers.settings()?;
        Ok(RunSettings {
            profile: profile.name.to_owned(),
            cold_start: Some(self.cold),
            rounds: self.rounds.unwrap_or(profile.rounds),
            blocking_handler_threads: s.blocking.handler_threads,
            async_worker_threads: s.asynchronous.worker_threads() as u32,
            async_blocking_threads: s.asynchronous.blocking_threads() as u32,
            async_rayon_threads: s.asynchronous.rayon_threads() as u32,
            db_pool_size: s.blocking.common.db_pool_size,
            redis_pool_size: s.blocking.common.redis_pool_size,
            blocking_redis_client: Some(s.blocking.redis_client().name().to_owned()),
            virtual_carriers: Some(s.virtual_threads.carrier_count() as u32),
            remote_db_round_trip_ms: None,
            loadgen_threads: load.threads as u32,
            cpu_n: profile.cpu_n,
            server_figures_from: None,
            targets: "started by bench".to_owned(),
            blocking_url: None,
            async_url: None,
            measured_by: None,
            jvm: None,
        })
    }
}

/// A column that measures a variant of its server (a mode's or its own
/// flags, e.g. `--connector tiny-http`), or whose server must reach
/// Postgres and Redis through bench's proxy, cannot run on a server given
/// by URL: bench did not start it and cannot give it flags. Such columns
/// are dropped from `groups` and returned as skipped, each with why.
fn drop_what_given_servers_cannot_run(
    groups: &mut [GroupPlan],
    servers: &ServerPlan,
) -> Vec<SkippedGroup> {
    let mut skipped = Vec::new();
    for plan in groups.iter_mut() {
        let group = &mut plan.group;
        let (id, local) = (group.id, group.network == Network::Local);
        group.columns.retain(|c| {
            if servers.url_of(c.target).is_none() {
                return true;
            }
            let flags: Vec<&str> = mode_args(c.target)
                .iter()
                .chain(c.server_args)
                .copied()
                .collect();
            let binary = binary(c.target);
            let reason = if !local {
                format!("its server reaches Postgres and Redis through a proxy bench starts; a server given by --{binary}-url is measured as it is")
            } else if !flags.is_empty() {
                format!("it measures the {binary} server started with `{}`; a server given by --{binary}-url is measured as it is", flags.join(" "))
            } else {
                return true;
            };
            skipped.push(SkippedGroup {
                group: Skipped::Column(id, c.id),
                reason,
            });
            false
        });
    }
    skipped
}

impl GroupPlan {
    /// The groups whose proxy's round trip `--db-latency` sets: the
    /// remote-database groups, the pool sweep and the real Loom's (the
    /// stall detector's keeps its own, [`super::STALLS_ROUND_TRIP`]).
    pub const DB_LATENCY_GROUPS: [GroupId; 4] = [
        GroupId::RemoteDb,
        GroupId::RemoteMixed,
        GroupId::PoolSweep,
        GroupId::CalibrationLoom,
    ];

    fn takes_db_latency(&self) -> bool {
        Self::DB_LATENCY_GROUPS.contains(&self.group.id)
    }

    /// The unrecorded window before each measured one: the same load, cut
    /// to the warm-up ([`Load::warm_up`]); none with `--cold`, nor for the
    /// loads that warm up otherwise (the mixed group's lead, a sweep
    /// step's lead, the idle group's probe with none open, another group's
    /// window measured first).
    pub fn warm_up_load(&self) -> Option<Load> {
        if self.first_window.is_some() {
            return None;
        }
        self.warm_up.and_then(|length| self.load.warm_up(length))
    }

    /// How results.json and the report name what comes before each window.
    pub fn describe_warm_up(&self, options: &LoadOptions) -> String {
        if let Some(first) = &self.first_window {
            return format!(
                "none of its own: on the same fresh server, the {} group's window first ({})",
                first.group.id,
                first.load.describe()
            );
        }
        self.load
            .describe_warm_up(self.warm_up_load().as_ref(), options.mixed_lead)
    }

    /// Its result with nothing measured yet: what it is, how it is loaded
    /// and warmed up.
    pub fn empty_result(&self, options: &LoadOptions) -> GroupResult {
        GroupResult {
            id: self.group.id,
            title: self.group.title.to_owned(),
            load: self.load.describe(),
            warm_up: self.describe_warm_up(options),
            columns: Vec::new(),
            cold_start: None,
            idle: None,
            sweep: None,
            equal_load: None,
        }
    }

    /// Its columns' results with no rounds yet.
    pub fn empty_columns(&self, options: &LoadOptions) -> Vec<ColumnResult> {
        let columns = self.group.columns.iter();
        columns.map(|c| c.empty_result(options.paths)).collect()
    }

    /// Column rounds to measure: each column once per round.
    pub fn column_rounds(&self) -> u32 {
        self.rounds * self.group.columns.len() as u32
    }

    /// Its equal-load column rounds: every ranked column once per round.
    pub fn equal_load_rounds(&self) -> u32 {
        self.equal_load.map_or(0, |e| e.rounds * e.columns as u32)
    }

    /// The planned length of every column round of it, its equal-load
    /// windows' included: what the estimate of a run is made of.
    pub fn planned_length(&self, options: &LoadOptions) -> Duration {
        let equal_load = self.equal_load.map_or(Duration::ZERO, |e| {
            e.warm_up.unwrap_or_default() + e.window + ROUND_OVERHEAD
        });
        self.planned_round(options) * self.column_rounds() + equal_load * self.equal_load_rounds()
    }

    /// The planned length of one column round: its load and warm-up, a
    /// server's start and stop, and for a Java column the JVM's start
    /// (about a second) and its own warm-up, as long as JVMs took to
    /// settle ([`JvmWarmUp::expected`](super::JvmWarmUp)), and for one that counts pinned virtual threads the
    /// waits for JFR's hand-over either side of its window, spread over
    /// the columns.
    pub fn planned_round(&self, options: &LoadOptions) -> Duration {
        let columns = &self.group.columns;
        let java = columns.iter().filter(|c| c.target.java().is_some()).count();
        let counting = columns.iter().filter(|c| c.counts_pins()).count();
        let warm_up = options.jvm_warm_up.map_or(Duration::ZERO, |w| w.expected);
        let share = |n: usize| n as f64 / columns.len().max(1) as f64;
        let jvm = (Duration::from_secs(1) + warm_up).mul_f64(share(java))
            + PINS_HANDED_OVER.mul_f64(share(counting));
        self.load.planned_round(self.warm_up.unwrap_or_default()) + ROUND_OVERHEAD + jvm
    }
}

/// Where a run measures both a twin group and its sibling, each column
/// round's fresh server takes the twin's window first, in place of the
/// sibling's warm-up: seed 000's burst as JMeter sent it on a cold server,
/// as seed 000 measured it, then the burst with every connection opened
/// first on the server it warmed up, as a burst of the same size warmed it
/// before. Both bursts then cost the run the time of one group, and each
/// column's two windows are on one process. They stay apart, each column
/// round on a fresh server, where the sibling has no warm-up (`--cold`:
/// every window on a cold server), where their rounds differ, or where
/// their columns do not pair up (a server given by URL drops some).
fn measure_twins_first(groups: &mut Vec<GroupPlan>) {
    let position = |groups: &[GroupPlan], id| groups.iter().position(|g| g.group.id == id);
    for (sibling, twin) in super::connect_groups::TWIN_GROUPS {
        let (Some(s), Some(t)) = (position(groups, sibling), position(groups, twin)) else {
            continue;
        };
        let (columns, twins) = (&groups[s].group.columns, &groups[t].group.columns);
        let pairs = columns.len() == twins.len()
            && columns
                .iter()
                .zip(twins)
                .all(|(c, t)| c.id.connect_in_request_twin() == Some(t.id));
        if !pairs || groups[s].warm_up_load().is_none() || groups[s].rounds != groups[t].rounds {
            continue;
        }
        let first = groups.remove(t);
        if let Some(s) = position(groups, sibling) {
            groups[s].first_window = Some(Box::new(first));
        }
    }
}
