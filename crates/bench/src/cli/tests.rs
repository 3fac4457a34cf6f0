//! The command line's tests: the flags reach the plan's request, bad
//! values are named, and each subcommand takes only its own flags.

use std::time::Duration;

use clap::{CommandFactory, Parser};

use super::*;
use crate::plan::{GroupId, Load, Profile, PROFILE_NAMES};

fn cli(args: &[&str]) -> Cli {
    Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied())).unwrap()
}

fn resolve(args: &[&str]) -> Result<(Profile, Vec<GroupId>), String> {
    cli(args).run.request().selection.resolve()
}

/// The long flags a subcommand's help lists (`--help` and `--version` aside).
fn flags_of(subcommand: &str) -> Vec<String> {
    // Built, so that a global flag shows in every subcommand as it would
    // in its help.
    let mut cmd = Cli::command();
    cmd.build();
    let sub = cmd.find_subcommand(subcommand).unwrap();
    sub.get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !matches!(*l, "help" | "version"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_help_names_every_group_and_profile() {
    let cmd = Cli::command();
    let help = |id: &str| {
        cmd.get_arguments()
            .find(|a| a.get_id() == id)
            .and_then(|a| a.get_help())
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    for g in GroupId::ALL {
        assert!(
            help("groups").contains(g.as_str()),
            "--groups' help lacks {g}"
        );
    }
    for p in PROFILE_NAMES {
        assert!(help("profile").contains(p), "--profile's help lacks {p}");
    }
}

#[test]
fn unknown_group_and_profile_are_named() {
    let e = resolve(&["--groups", "cpu,nope"]).unwrap_err();
    assert!(e.contains("unknown group \"nope\""), "{e}");
    let e = resolve(&["--profile", "huge"]).unwrap_err();
    assert!(e.contains("unknown profile \"huge\""), "{e}");
}

#[test]
fn overrides_reach_every_matching_load() {
    let (p, groups) = resolve(&[
        "--groups",
        "cpu,cache",
        "--requests",
        "7",
        "--duration",
        "2s",
        "--connections",
        "3",
        "--cpu-n",
        "99",
    ])
    .unwrap();
    assert_eq!(groups, vec![GroupId::Cpu, GroupId::Cache]);
    assert_eq!(p.cpu_n, 99);
    assert_eq!(
        p.load(GroupId::Cpu),
        Some(&Load::ClosedCount {
            connections: 3,
            requests: 7
        })
    );
    assert_eq!(
        p.load(GroupId::Cache),
        Some(&Load::Closed {
            connections: 3,
            duration: Duration::from_secs(2)
        })
    );
}

#[test]
fn only_the_seed_profile_runs_the_calibration_groups_unless_asked() {
    let calibration = |args: &[&str]| -> Vec<GroupId> {
        let (_, groups) = resolve(args).unwrap();
        groups.into_iter().filter(|g| g.is_calibration()).collect()
    };
    assert_eq!(calibration(&["--profile", "seed"]), GroupId::CALIBRATION);
    assert!(calibration(&["--profile", "quick"]).is_empty());
    assert!(calibration(&["--profile", "tiny"]).is_empty());
    assert_eq!(
        calibration(&[
            "--profile",
            "tiny",
            "--groups",
            "calibration,calibration-posts"
        ]),
        GroupId::CALIBRATION
    );
}

#[test]
fn idle_connection_counts_are_sorted_and_must_be_positive() {
    let (p, _) = resolve(&["--idle-connections", "2000,500,500", "--duration", "1s"]).unwrap();
    let Some(Load::Idle(idle)) = p.load(GroupId::Idle) else {
        panic!("no idle load");
    };
    assert_eq!(idle.sizes, [500, 2000]);
    assert_eq!(idle.probe_for, Duration::from_secs(1));
    let e = resolve(&["--idle-connections", "0,10"]).unwrap_err();
    assert!(e.contains("--idle-connections"), "{e}");
}

#[test]
fn each_subcommand_lists_only_the_flags_it_reads() {
    let load = [
        "profile",
        "requests",
        "duration",
        "connections",
        "idle-connections",
        "cpu-n",
    ];
    let with = |extra: &[&str], base: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| (*s).to_owned()).collect()
    };
    assert_eq!(flags_of("proxy"), ["to", "round-trip-us"]);
    assert!(flags_of("serve").is_empty(), "{:?}", flags_of("serve"));
    assert_eq!(flags_of("render"), ["recheck", "out"]);
    assert_eq!(flags_of("compare"), ["out"]);
    assert_eq!(flags_of("doc-tables"), ["check"]);
    assert_eq!(
        flags_of("watch"),
        ["column", "blocking-url", "async-url", "out"]
    );
    let export = with(&["groups", "blocking-url", "async-url", "out"], &load);
    assert_eq!(
        flags_of("export"),
        [&["tool".to_owned()][..], &export].concat()
    );
    let import = with(&["out"], &load);
    assert_eq!(
        flags_of("import"),
        [&["tool".to_owned()][..], &import].concat()
    );
}

#[test]
fn a_run_flag_given_to_a_subcommand_is_refused() {
    for args in [
        &[
            "proxy",
            "--to",
            "127.0.0.1:1",
            "--round-trip-us",
            "1",
            "--profile",
            "seed",
        ][..],
        &["render", "r.json", "--groups", "cpu"],
        &["--rounds", "2", "compare", "a.json", "b.json"],
        &["import", "--tool", "k6", "f.json", "--groups", "cpu"],
    ] {
        let e = Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied()));
        assert!(e.is_err(), "{args:?} parsed");
    }
    // What users and the export's README type still parses.
    for args in [
        &[
            "export",
            "--tool",
            "k6",
            "--profile",
            "seed",
            "--groups",
            "cpu",
            "--out",
            "x",
        ][..],
        &[
            "import",
            "--tool",
            "locust",
            "--profile",
            "quick",
            "--duration",
            "2000ms",
            "--out",
            "r",
            "a.csv",
        ],
        &[
            "watch",
            "--column",
            "async-users",
            "--async-url",
            "http://h:1",
            "--out",
            "r",
            "--",
            "k6",
            "run",
        ],
        &["render", "r.json", "--out", "d", "--recheck"],
        &[
            "--profile",
            "seed",
            "--groups",
            "pool-sweep",
            "--cold",
            "--db-latency",
            "500us",
        ],
    ] {
        let parsed = Cli::try_parse_from(std::iter::once("bench").chain(args.iter().copied()));
        assert!(parsed.is_ok(), "{args:?}: {}", parsed.unwrap_err());
    }
}
