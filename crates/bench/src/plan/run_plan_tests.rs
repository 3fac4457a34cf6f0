//! The plan's estimate of a run's length against each profile's budget:
//! what the progress line counts down at the start is what the profile
//! promises.

use super::{groups, GroupPlan, JavaServer, Request, RunPlan, Selection, Target};

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
/// under 60, Tomcat's virtual-thread columns (on Java 21 and 25) and the
/// JVMs' warm-ups at their bound included.
#[test]
fn the_seed_profile_is_planned_within_its_budget() {
    let seed = plan_of("seed");
    let (groups, skipped) = (seed.groups.len(), seed.skipped.len());
    assert_eq!((groups, skipped), (super::GroupId::ALL.len(), 0));
    let seed = minutes(&seed.groups, &seed);
    assert!(seed < 60.0, "the seed profile is planned at {seed:.1} min");
    let quick = plan_of("quick");
    let quick = minutes(&quick.groups, &quick);
    assert!(
        quick < 4.5,
        "the quick profile is planned at {quick:.2} min"
    );
}

/// The calibration groups, every Java column on its runtime included,
/// and each fresh JVM warming up until it settles (planned at the bound),
/// add about ten minutes to the seed profile, not tens.
#[test]
fn the_calibration_groups_add_minutes_not_tens_to_the_seed_profile() {
    let seed = plan_of("seed");
    let (calibration, ours): (Vec<GroupPlan>, Vec<GroupPlan>) = seed
        .groups
        .iter()
        .cloned()
        .partition(|g| g.group.id.is_calibration());
    let (before, added) = (minutes(&ours, &seed), minutes(&calibration, &seed));
    eprintln!(
        "seed estimate: {before:.1} min without the calibration groups, {added:.1} min added"
    );
    assert!(
        added < 10.5,
        "the calibration groups add {added:.1} min to the seed profile"
    );
    assert_eq!(ours.len() + calibration.len(), groups().len());
    // Java 21's and 25's columns are among them.
    let on_a_runtime = calibration
        .iter()
        .flat_map(|g| &g.group.columns)
        .filter(|c| c.java.is_some() && c.target == Target::Java(JavaServer::TomcatVirtual))
        .count();
    assert_eq!(on_a_runtime, 4);
}
