//! The profiles' tables checked: every group loaded where it should be,
//! the sweeps' steps.

use super::profiles::{doubling, profile, seed, PROFILE_NAMES};
use super::Load;
use bench_model::GroupId;

#[test]
fn every_profile_loads_every_group_but_the_ones_it_leaves_out() {
    // The pool sweep is the seed profile's only; quick has no seed 000
    // burst, so none as JMeter sent it either (tiny runs one, small).
    let left_out = |name: &str, g: GroupId| match g {
        GroupId::PoolSweep => name != "seed",
        GroupId::CpuConnectInRequest | GroupId::DatabaseConnectInRequest => name == "quick",
        _ => false,
    };
    for name in PROFILE_NAMES {
        let p = profile(name).unwrap();
        for g in GroupId::ALL {
            assert_eq!(
                p.load(*g).is_some(),
                !left_out(name, *g),
                "profile {name}, group {g}"
            );
        }
    }
    let ids: Vec<GroupId> = super::groups().iter().map(|g| g.id).collect();
    assert_eq!(ids, GroupId::ALL);
}

#[test]
fn sweeps_double_from_50_to_3200_and_from_8_to_512_in_seed() {
    assert_eq!(doubling(50, 3200), vec![50, 100, 200, 400, 800, 1600, 3200]);
    assert_eq!(doubling(8, 512), vec![8, 16, 32, 64, 128, 256, 512]);
    let seed = seed();
    let Some(Load::Sweep(posts)) = seed.load(GroupId::SweepPosts) else {
        panic!("seed has no posts sweep");
    };
    assert_eq!(posts.steps, doubling(50, 3200));
    for name in PROFILE_NAMES {
        let p = profile(name).unwrap();
        for g in [GroupId::SweepPosts, GroupId::SweepUsers] {
            let Some(Load::Sweep(s)) = p.load(g) else {
                panic!("{name} has no sweep for {g}");
            };
            assert!(
                s.steps.windows(2).all(|w| w[0] < w[1]),
                "{name} {g}: ascending"
            );
        }
    }
}
