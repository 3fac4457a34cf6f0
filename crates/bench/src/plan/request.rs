//! What a run was asked for, as plain data: the profile and the groups,
//! the overrides of their loads ([`Selection`], which `bench export` and
//! `bench import` take too), and the choices of the main job about rounds,
//! warm-up, the servers and the JDK ([`Request`]). The command line fills
//! it in; [`super::RunPlan::new`] turns it into the plan a run carries out.

use std::path::PathBuf;
use std::time::Duration;

use super::loads::Load;
use super::profiles::{profile, Profile, PROFILE_NAMES};
use bench_model::GroupId;

/// The profile, the groups and the overrides of their loads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// A profile's name (`quick`, `seed`, `tiny`).
    pub profile: String,
    /// Group names in the order given (`calibration`: the four
    /// calibration groups); `None`: the profile's own choice.
    pub groups: Option<Vec<String>>,
    pub loads: LoadOverrides,
}

/// What replaces a field of every load that has it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOverrides {
    /// Burst and counted loads' requests.
    pub requests: Option<u64>,
    /// Timed loads' length; a sweep's per-step window; the idle probe's length.
    pub duration: Option<Duration>,
    /// Closed loops' connections, and the mixed group's background.
    pub connections: Option<usize>,
    /// The idle group's connection counts.
    pub idle_connections: Option<Vec<usize>>,
    /// `/cpu?n=` (not the stalls group's).
    pub cpu_n: Option<u64>,
}

/// Everything the main job was asked: what to run, and how.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub selection: Selection,
    /// Rounds per column, sweeps' included (default: the profile's, a
    /// sweep's own where it has one).
    pub rounds: Option<u32>,
    /// The warm-up of timed loads (default: the profile's).
    pub warm_up: Option<Duration>,
    /// No warm-up of any kind before a measured window.
    pub cold: bool,
    /// Cold starts of the cold-start probe per probed server.
    pub cold_starts: Option<u32>,
    /// The round trip in front of Postgres and Redis in the remote groups.
    pub db_latency: Option<Duration>,
    pub servers: ServerChoices,
    /// Load generator threads (default: cores).
    pub loadgen_threads: Option<usize>,
    pub java: JavaChoice,
    /// The longest silence of a run whose stderr is not a terminal.
    pub heartbeat: Option<Duration>,
}

/// The servers: ones running at a URL instead of bench's own, and the
/// sizes of those bench starts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerChoices {
    pub blocking_url: Option<String>,
    pub async_url: Option<String>,
    pub handler_threads: Option<u32>,
    pub worker_threads: Option<u32>,
    pub pool_size: Option<u32>,
}

/// Where the calibration servers' JDK and jars are (default: found).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JavaChoice {
    pub home: Option<PathBuf>,
    pub jars: Option<PathBuf>,
}

impl Selection {
    /// The profile named `name` with no overrides and its own groups.
    pub fn profile(name: &str) -> Selection {
        Selection {
            profile: name.to_owned(),
            ..Selection::default()
        }
    }

    /// The profile with every load override applied, and the groups to
    /// run, or one line saying what is wrong.
    pub fn resolve(&self) -> Result<(Profile, Vec<GroupId>), String> {
        let mut profile = profile(&self.profile).ok_or_else(|| {
            format!(
                "unknown profile {:?}; expected one of {}",
                self.profile,
                PROFILE_NAMES.join(", ")
            )
        })?;
        let groups = self.selected_groups(&profile)?;
        let o = &self.loads;
        if let Some(n) = o.cpu_n {
            profile.cpu_n = n;
        }
        let idle_sizes = o.idle_sizes()?;
        if o.requests == Some(0) || o.connections == Some(0) {
            return Err("--requests and --connections must be at least 1".into());
        }
        for g in GroupId::ALL {
            if let Some(load) = profile.load_mut(*g) {
                o.apply(load, idle_sizes.as_deref());
            }
        }
        Ok((profile, groups))
    }

    /// `groups`, each once, in the order given (`calibration` is the
    /// four calibration groups); without them every group, the calibration
    /// groups only where the profile runs them by default.
    fn selected_groups(&self, profile: &Profile) -> Result<Vec<GroupId>, String> {
        let Some(names) = &self.groups else {
            return Ok(GroupId::ALL
                .iter()
                .copied()
                .filter(|g| !g.is_calibration() || profile.calibration_by_default)
                .collect());
        };
        let mut out = Vec::new();
        for name in names {
            let ids = match name.trim() {
                "calibration" => GroupId::CALIBRATION.to_vec(),
                one => vec![GroupId::parse(one).ok_or_else(|| {
                    let all: Vec<&str> = GroupId::ALL.iter().map(|g| g.as_str()).collect();
                    format!("unknown group {name:?}; expected one of {}", all.join(", "))
                })?],
            };
            for id in ids {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        Ok(out)
    }
}

impl LoadOverrides {
    /// The idle connection counts, ascending and each once.
    fn idle_sizes(&self) -> Result<Option<Vec<usize>>, String> {
        let Some(sizes) = &self.idle_connections else {
            return Ok(None);
        };
        let mut sizes = sizes.clone();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.is_empty() || sizes[0] == 0 {
            return Err("--idle-connections must be counts of at least 1".into());
        }
        Ok(Some(sizes))
    }

    /// The overrides that apply to `load`'s shape.
    fn apply(&self, load: &mut Load, idle_sizes: Option<&[usize]>) {
        let set = |field: &mut usize, value: Option<usize>| {
            if let Some(v) = value {
                *field = v;
            }
        };
        let duration = |field: &mut Duration| *field = self.duration.unwrap_or(*field);
        match load {
            Load::Burst { requests, .. } => set(requests, self.requests.map(|r| r as usize)),
            Load::ClosedCount {
                connections,
                requests,
            } => {
                *requests = self.requests.unwrap_or(*requests);
                set(connections, self.connections);
            }
            Load::Closed {
                connections,
                duration: d,
            } => {
                duration(d);
                set(connections, self.connections);
            }
            Load::Mixed {
                background,
                duration: d,
                ..
            } => {
                duration(d);
                set(background, self.connections);
            }
            Load::Idle(idle) => {
                duration(&mut idle.probe_for);
                if let Some(sizes) = idle_sizes {
                    idle.sizes = sizes.to_vec();
                }
            }
            Load::Sweep(sweep) => duration(&mut sweep.window),
            Load::Stages(_) => {}
        }
    }
}
