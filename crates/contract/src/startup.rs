//! How both servers retry a dependency that is not there yet at start-up
//! (`docker compose up` starts everything at once): one deadline for the
//! whole start-up, pauses that double from 250 ms up to 2 s. Pure arithmetic
//! on instants; each server waits out the pauses its own way (a blocking
//! `recv_timeout` on the shutdown channel, or a tokio timer raced against the
//! shutdown future), and a shutdown request ends the retries at once on both.

use std::time::{Duration, Instant};

/// How long start-up (migrations, then the cache seed) keeps retrying.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// The pause after the first failed attempt.
pub const FIRST_RETRY_PAUSE: Duration = Duration::from_millis(250);
/// The longest pause between two attempts.
pub const MAX_RETRY_PAUSE: Duration = Duration::from_secs(2);

/// The retry schedule of one start-up: share one between the steps, so the
/// deadline bounds the whole start-up, not each step.
#[derive(Debug, Clone)]
pub struct RetrySchedule {
    deadline: Instant,
    next_pause: Duration,
}

impl RetrySchedule {
    /// A schedule whose deadline is [`STARTUP_TIMEOUT`] after `now`.
    pub fn starting_at(now: Instant) -> Self {
        RetrySchedule {
            deadline: now + STARTUP_TIMEOUT,
            next_pause: FIRST_RETRY_PAUSE,
        }
    }

    /// After a failed attempt of `what` at `now`: how long to pause before
    /// the next one, or, when the pause would end past the deadline, the
    /// message to give up with (add it to the last error). Each pause is
    /// twice the one before, at most [`MAX_RETRY_PAUSE`].
    pub fn pause_after_failure(&mut self, what: &str, now: Instant) -> Result<Duration, String> {
        let pause = self.next_pause;
        if now + pause > self.deadline {
            return Err(format!("{what} did not succeed within {STARTUP_TIMEOUT:?}"));
        }
        self.next_pause = (pause * 2).min(MAX_RETRY_PAUSE);
        Ok(pause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_double_up_to_the_cap_then_stop_at_the_deadline() {
        let start = Instant::now();
        let mut schedule = RetrySchedule::starting_at(start);
        let mut now = start;
        let mut pauses = Vec::new();
        while let Ok(pause) = schedule.pause_after_failure("x", now) {
            pauses.push(pause.as_millis());
            now += pause;
        }
        assert_eq!(pauses[..6], [250, 500, 1000, 2000, 2000, 2000]);
        let waited: u128 = pauses.iter().sum();
        assert!(
            waited <= STARTUP_TIMEOUT.as_millis() && waited > STARTUP_TIMEOUT.as_millis() - 2000,
            "{waited} ms"
        );
    }

    #[test]
    fn the_deadline_is_for_the_whole_start_up() {
        let start = Instant::now();
        let mut schedule = RetrySchedule::starting_at(start);
        assert_eq!(
            schedule.pause_after_failure(
                "applying migrations",
                start + STARTUP_TIMEOUT - Duration::from_millis(100)
            ),
            Err("applying migrations did not succeed within 30s".to_owned())
        );
    }
}
