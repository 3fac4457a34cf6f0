//! The pinning detector's two findings, the analog of JFR's
//! `jdk.VirtualThreadPinned`, judged like the event loop's
//! ([`super::detector`]), one per half:
//!
//! - the marks: blocking calls made on a carrier, counted by the code,
//!   per request, on exactly the routes the contract's route table says
//!   block a carrier with the column's driver (the pinning driver's
//!   database routes and inline `/cpu`; with the yielding driver `/cpu`
//!   alone), and on no other, in every virtual column of every group
//!   ([`marks_blocking_calls`]);
//! - the timing: carrier stalls (a request's run between two parks of 5 ms
//!   or more) per request, flagging the same routes, judged in the stall
//!   detectors' group, where Postgres and Redis are 10 ms away and `/cpu`
//!   computes for longer than the threshold ([`timing_flags_stalls`]).

use contract::routes::NonBlocking;

use super::checks::{Kind, Needs, Outcome, Spec};
use super::detector::{
    detector_columns, exact_flags_verdict, lag_words, observations, routes_blocking,
    DetectorObservation, Figures, Half,
};
use super::Thresholds;
use crate::stats;
use bench_model::RunResults;
use bench_model::{Driver, GroupId, Target};

/// Every finding of this family, in report order.
pub(super) fn specs(t: &Thresholds) -> Vec<Spec> {
    vec![marks_blocking_calls(t), timing_flags_stalls(t)]
}

/// The threads a driver must not block: the route table's mode for it.
pub(super) fn carrier_mode(driver: Driver) -> NonBlocking {
    match driver {
        Driver::Pinning => NonBlocking::CarrierPinningDriver,
        Driver::Yielding => NonBlocking::CarrierYieldingDriver,
    }
}

/// Every virtual column's routes in every round (the mixed groups' /health
/// probe and background route both), from the detector's figures; sweep
/// steps do not read it.
pub fn virtual_observations(results: &RunResults) -> Vec<DetectorObservation> {
    observations(
        results,
        |server| match server {
            Target::Virtual(driver) => Some(carrier_mode(driver)),
            _ => None,
        },
        |window, detector| Figures {
            blocking_calls_per_request: window.and_then(|w| w.blocking_calls_per_request()),
            carrier_stalls_per_request: window.and_then(|w| w.carrier_stalls_per_request()),
            lag_p99_ms: detector.and_then(|d| d.carrier_lag_p99_ms),
            ..Figures::default()
        },
    )
}

/// The marks: blocking calls on a carrier per request.
pub fn carrier_blocking_calls(t: &Thresholds) -> Half {
    Half {
        name: "blocking calls on a carrier per request",
        figure: |o| o.blocking_calls_per_request,
        line: t.detector_blocking_calls_per_request,
        show: stats::per_poll,
    }
}

/// The timing: carrier stalls per request.
pub fn carrier_stalls(t: &Thresholds) -> Half {
    Half {
        name: "carrier stalls per request",
        figure: |o| o.carrier_stalls_per_request,
        line: t.detector_carrier_stalls_per_request,
        show: stats::percent,
    }
}

/// The routes each driver's detector should flag, in words.
fn what_should_be_flagged() -> String {
    format!(
        "with the pinning driver {}; with the yielding driver {}",
        routes_blocking(NonBlocking::CarrierPinningDriver),
        routes_blocking(NonBlocking::CarrierYieldingDriver)
    )
}

/// The marks flag exactly the pinning routes and inline /cpu.
fn marks_blocking_calls(t: &Thresholds) -> Spec {
    Spec {
        id: "virtual-detector-marks-pinning-calls",
        seed: "beyond the seeds: which route pins my carrier? (JFR's jdk.VirtualThreadPinned)",
        kind: Kind::DesignCheck("the mark is set only inside on_carrier, which only the pinning driver and /cpu call"),
        claim: format!(
            "the virtual-thread server's blocking-call marks count calls on a carrier on exactly the routes that hold one by design ({}, among those run) and on no other: at least {} per request in a window, in every virtual-thread column of every group",
            what_should_be_flagged(),
            t.detector_blocking_calls_per_request
        ),
        needs: Needs::InRun(|r| detector_columns(r, is_virtual, |_| true)),
        check: Box::new(|cx, t| {
            exact_flags_verdict(
                &virtual_observations(cx.results),
                &carrier_blocking_calls(t),
                t,
            )
        }),
    }
}

/// The timing flags the same routes where their blocking lasts.
fn timing_flags_stalls(t: &Thresholds) -> Spec {
    Spec {
        id: "virtual-detector-timing-flags-pinning-routes",
        seed: "beyond the seeds: a pinned carrier seen by its timing alone",
        kind: Kind::Prediction("carrier stalls timed by the clock on a loaded machine, which can miss a route or flag one"),
        claim: format!(
            "timing alone flags each route that holds a carrier by design ({}) and no other route: carrier stalls (a run between two parks of 5 ms or more) on at least {} of a route's requests in every round of the stall detectors' group, where Postgres and Redis answer 10 ms away and /cpu computes for longer than the threshold",
            what_should_be_flagged(),
            stats::percent(t.detector_carrier_stalls_per_request)
        ),
        needs: Needs::InRun(|r| detector_columns(r, is_virtual, |g| g == GroupId::Stalls)),
        check: Box::new(|cx, t| timing_outcome(cx.results, t)),
    }
}

/// [`timing_flags_stalls`]'s verdict, with the carrier lag beside it.
fn timing_outcome(results: &RunResults, t: &Thresholds) -> Option<Outcome> {
    let obs: Vec<DetectorObservation> = virtual_observations(results)
        .into_iter()
        .filter(|o| o.group == GroupId::Stalls)
        .collect();
    let outcome = exact_flags_verdict(&obs, &carrier_stalls(t), t)?;
    let evidence = format!("{}; {}", outcome.evidence, lag_words(&obs));
    Some(Outcome {
        evidence,
        ..outcome
    })
}

/// Whether a column's server runs on virtual threads.
fn is_virtual(server: Target) -> bool {
    matches!(server, Target::Virtual(_))
}
