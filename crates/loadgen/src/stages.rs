//! The k6-style ramping schedule (`--stages 15s:50,30s:100,...`): parsing it
//! and answering "how many connections should be active at this instant".
//!
//! The schedule is a pure function of elapsed time so that it can be tested at
//! chosen instants; the runner's controller only samples it every ~100 ms.

use std::time::Duration;

use serde::Serialize;

use crate::duration_text::parse_duration_or_zero;

/// One stage: ramp linearly from the previous target to `target` over `duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stage {
    /// How long the ramp lasts.
    #[serde(serialize_with = "crate::report::serialize_duration_ms")]
    pub duration: Duration,
    /// Active connections at the end of the stage.
    pub target: usize,
}

/// Parses `15s:50,30s:100,15s:150,30s:0`.
pub fn parse_stages(text: &str) -> Result<Vec<Stage>, String> {
    let mut stages = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (duration, target) = part.split_once(':').ok_or_else(|| {
            format!("stage '{part}' must look like DURATION:CONNECTIONS, e.g. 30s:100")
        })?;
        let duration =
            parse_duration_or_zero(duration).map_err(|e| format!("stage '{part}': {e}"))?;
        let target = target.trim().parse::<usize>().map_err(|_| {
            format!("stage '{part}': connection count '{target}' is not a whole number")
        })?;
        stages.push(Stage { duration, target });
    }
    if stages.iter().all(|s| s.duration.is_zero()) {
        return Err(format!("stages '{text}' last no time at all"));
    }
    Ok(stages)
}

/// Total length of the schedule.
pub fn total_duration(stages: &[Stage]) -> Duration {
    stages.iter().map(|s| s.duration).sum()
}

/// The largest connection count the schedule ever asks for.
pub fn peak_connections(stages: &[Stage]) -> usize {
    stages.iter().map(|s| s.target).max().unwrap_or(0)
}

/// Number of connections that should be active `elapsed` after the start.
///
/// The schedule starts from zero and moves linearly towards each stage's
/// target; the count is rounded to the nearest whole connection. After the
/// last stage it is the last target (the runner stops at that point anyway).
pub fn active_connections_at(stages: &[Stage], elapsed: Duration) -> usize {
    let mut from = 0usize;
    let mut stage_start = Duration::ZERO;
    for stage in stages {
        let stage_end = stage_start + stage.duration;
        if elapsed < stage_end {
            let into = (elapsed - stage_start).as_secs_f64();
            let fraction = into / stage.duration.as_secs_f64();
            let value = from as f64 + (stage.target as f64 - from as f64) * fraction;
            return value.round().max(0.0) as usize;
        }
        from = stage.target;
        stage_start = stage_end;
    }
    from
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed_002() -> Vec<Stage> {
        parse_stages("15s:50,30s:100,15s:150,30s:0").expect("valid stages")
    }

    #[test]
    fn parses_the_seed_002_schedule() {
        let stages = seed_002();
        assert_eq!(stages.len(), 4);
        assert_eq!(
            stages[0],
            Stage {
                duration: Duration::from_secs(15),
                target: 50
            }
        );
        assert_eq!(
            stages[3],
            Stage {
                duration: Duration::from_secs(30),
                target: 0
            }
        );
        assert_eq!(total_duration(&stages), Duration::from_secs(90));
        assert_eq!(peak_connections(&stages), 150);
    }

    #[test]
    fn active_connections_follow_linear_ramps() {
        let stages = seed_002();
        let cases = [
            (0.0, 0),
            (1.5, 5),
            (7.5, 25),
            (15.0, 50),
            (30.0, 75),
            (45.0, 100),
            (52.5, 125),
            (60.0, 150),
            (75.0, 75),
            (89.7, 2),
            (90.0, 0),
            (200.0, 0),
        ];
        for (seconds, expected) in cases {
            assert_eq!(
                active_connections_at(&stages, Duration::from_secs_f64(seconds)),
                expected,
                "at {seconds}s"
            );
        }
    }

    #[test]
    fn a_zero_length_stage_jumps_straight_to_its_target() {
        let stages = parse_stages("0s:10,10s:10").expect("valid stages");
        assert_eq!(active_connections_at(&stages, Duration::ZERO), 10);
        assert_eq!(active_connections_at(&stages, Duration::from_secs(5)), 10);
    }

    #[test]
    fn rejects_malformed_stages() {
        for text in ["", "15s", "15s:abc", "xx:10", "15s:10,", "0s:5"] {
            assert!(parse_stages(text).is_err(), "{text}");
        }
    }
}
