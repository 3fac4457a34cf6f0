//! The plan's estimate of a run's length against each profile's budget:
//! what the progress line counts down at the start is what the profile
//! promises.

use super::{groups, BurstConnect, GroupId, GroupPlan, JavaServer, Load, Request, RunPlan};
use super::{Selection, Target};

/// The plan of every group `profile` runs by default, without a flag.
fn plan_of(profile: &str) -> RunPlan {
    let request = Request {
        selection: Selection::profile(profile),
        ..Request::default()
    };
    RunPlan::new(&request).unwrap()
}

/// The planned length of `groups`, in minutes: what the progress line
/// counts down at the start.
fn minutes(groups: &[GroupPlan], plan: &RunPlan) -> f64 {
    groups
        .iter()
        .map(|g| f64::from(g.column_rounds()) * g.planned_round(&plan.load).as_secs_f64())
        .sum::<f64>()
        / 60.0
}

/// The seed profile's budget is 75 minutes on 2 cores; a run has taken
/// about a fifth longer than its plan (bursts, the idle group's opening
/// and the servers' starts outlast their guesses), so the plan stays
/// under 60, Tomcat's virtual-thread columns (a JDK 21's) included.
#[test]
fn the_seed_profile_is_planned_within_its_budget() {
    let seed = plan_of("seed");
    let (groups, skipped) = (seed.groups.len(), seed.skipped.len());
    // Every group, the two of seed 000's burst as JMeter sent it inside
    // their siblings' rounds.
    assert_eq!((groups, skipped), (GroupId::ALL.len() - 2, 0));
    let seed = minutes(&seed.groups, &seed);
    assert!(seed < 60.0, "the seed profile is planned at {seed:.1} min");
    let quick = plan_of("quick");
    let quick = minutes(&quick.groups, &quick);
    assert!(
        quick < 4.5,
        "the quick profile is planned at {quick:.2} min"
    );
}

#[test]
fn the_calibration_groups_add_minutes_not_tens_to_the_seed_profile() {
    let seed = plan_of("seed");
    let (mut calibration, ours): (Vec<GroupPlan>, Vec<GroupPlan>) = seed
        .groups
        .iter()
        .cloned()
        .partition(|g| g.group.id.is_calibration());
    // On a JDK 17 Tomcat's virtual-thread columns are skipped.
    for g in &mut calibration {
        g.group
            .columns
            .retain(|c| c.target != Target::Java(JavaServer::TomcatVirtual));
    }
    let (before, added) = (minutes(&ours, &seed), minutes(&calibration, &seed));
    eprintln!(
        "seed estimate: {before:.1} min without the calibration groups, {added:.1} min added"
    );
    assert!(
        added < 7.0,
        "the calibration groups add {added:.1} min to the seed profile"
    );
    assert_eq!(ours.len() + calibration.len() + 2, groups().len());
}

/// The load of a group's plan, or of the group whose window it measures first.
fn burst_of(plan: &GroupPlan) -> Option<BurstConnect> {
    match plan.load {
        Load::Burst { connect, .. } => Some(connect),
        _ => None,
    }
}

/// The seed profile measures seed 000's two groups under both bursts: on
/// each column round's fresh server, the burst as JMeter sent it (each
/// request connecting, on the cold server, as seed 000 measured it) in
/// place of the warm-up, then the burst with every connection opened
/// first. With `--cold` each runs on servers of its own, every window cold.
#[test]
fn the_seed_profile_measures_seed_000_under_both_bursts() {
    let seed = plan_of("seed");
    for (id, twin) in [
        (GroupId::Cpu, GroupId::CpuConnectInRequest),
        (GroupId::Database, GroupId::DatabaseConnectInRequest),
    ] {
        let plan = seed.groups.iter().find(|g| g.group.id == id).unwrap();
        assert_eq!(burst_of(plan), Some(BurstConnect::First), "{id}");
        assert_eq!(
            plan.warm_up_load(),
            None,
            "{id}: the first window warms it up"
        );
        let first = plan
            .first_window
            .as_deref()
            .expect("the JMeter burst first");
        assert_eq!(first.group.id, twin);
        assert_eq!(burst_of(first), Some(BurstConnect::InRequest), "{twin}");
        assert_eq!(
            first.load,
            Load::Burst {
                requests: 10_000,
                connect: BurstConnect::InRequest
            }
        );
        assert_eq!(first.warm_up_load(), None, "{twin}: a cold server");
        assert!(
            !seed.groups.iter().any(|g| g.group.id == twin),
            "{twin} once"
        );
    }
    let cold = RunPlan::new(&Request {
        selection: Selection::profile("seed"),
        cold: true,
        ..Request::default()
    })
    .unwrap();
    let ids: Vec<GroupId> = cold.groups.iter().map(|g| g.group.id).collect();
    assert_eq!(&ids[..4], &GroupId::ALL[..4], "apart with --cold");
    assert!(cold.groups.iter().all(|g| g.first_window.is_none()));
    // The quick profile runs no seed 000 burst, and so neither twin.
    let quick = plan_of("quick");
    assert!(!quick.groups.iter().any(|g| g.first_window.is_some()
        || matches!(
            g.group.id,
            GroupId::CpuConnectInRequest | GroupId::DatabaseConnectInRequest
        )));
}
