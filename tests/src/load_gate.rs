//! Which tests of the suites' one binary may run beside which: a test that
//! loads the machine runs with no other such test and no test that times
//! anything; tests that time things run beside each other and beside the
//! plain ones.
//!
//! libtest runs the tests of a binary on several threads. On a machine of
//! two cores, a burst of thousands of connections or four client threads in
//! a tight loop ([`exclusive`]) takes both cores for seconds, and a test
//! that asserts a latency (a `/health` within 10 ms, a 503 no sooner than
//! the acquire timeout, [`quiet`]) would read that as its own server's
//! slowness. The plain tests (exact bytes, statuses, one request at a time)
//! take no guard: they neither load the machine for long nor time it.
//!
//! A test takes its guard first, before it starts any server: a server on
//! virtual threads holds may's carriers (`carriers.rs`), and a test that
//! held carriers while waiting here could wait for a test that waits for
//! the carriers.

use std::io::Write;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// When set, each guard appends a line to the file it names as it is
/// dropped: the test (its thread's name), `exclusive` or `quiet`, seconds
/// waited for the gate and seconds held. libtest's `--report-time` counts a
/// test's wait at the gate as its own time; scripts/test-times.py reads
/// these lines to tell the two apart.
const LOG_ENV: &str = "HARNESS_GATE_LOG";

/// The gate: heavy tests write, timing-sensitive ones read. std's lock on
/// Linux lets no new reader in while a writer waits, so the heavy tests are
/// not put off until every timing test has run.
static GATE: RwLock<()> = RwLock::new(());

/// A place at the gate, held until dropped.
#[must_use = "the gate is held only while the guard lives"]
#[derive(Debug)]
pub struct LoadGate {
    _exclusive: Option<RwLockWriteGuard<'static, ()>>,
    _quiet: Option<RwLockReadGuard<'static, ()>>,
    waited: Duration,
    taken: Instant,
}

impl Drop for LoadGate {
    fn drop(&mut self) {
        let Some(path) = std::env::var_os(LOG_ENV) else {
            return;
        };
        let kind = if self._exclusive.is_some() {
            "exclusive"
        } else {
            "quiet"
        };
        let line = format!(
            "{}\t{kind}\t{:.3}\t{:.3}\n",
            std::thread::current().name().unwrap_or("?"),
            self.waited.as_secs_f64(),
            self.taken.elapsed().as_secs_f64()
        );
        // One short append per test: lines of tests ending at once do not mix.
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// For a test that loads the machine (bursts, tight request loops, several
/// servers seeding at once): waits until no other heavy test and no
/// [`quiet`] one runs, and keeps them out until dropped.
pub fn exclusive() -> LoadGate {
    let asked = Instant::now();
    let guard = GATE.write().unwrap_or_else(PoisonError::into_inner);
    LoadGate {
        _exclusive: Some(guard),
        _quiet: None,
        waited: asked.elapsed(),
        taken: Instant::now(),
    }
}

/// For a test whose assertions time something: waits while a heavy test
/// runs, and keeps heavy tests out until dropped; other quiet tests and the
/// plain ones run beside it.
pub fn quiet() -> LoadGate {
    let asked = Instant::now();
    let guard = GATE.read().unwrap_or_else(PoisonError::into_inner);
    LoadGate {
        _exclusive: None,
        _quiet: Some(guard),
        waited: asked.elapsed(),
        taken: Instant::now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Takes `gate` on a thread of its own and holds it until told; says
    /// when it has it.
    fn hold_on_a_thread(
        gate: fn() -> LoadGate,
    ) -> (
        mpsc::Receiver<()>,
        mpsc::Sender<()>,
        std::thread::JoinHandle<()>,
    ) {
        let (got_tx, got) = mpsc::channel();
        let (release, release_rx) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let _held = gate();
            got_tx.send(()).unwrap();
            let _ = release_rx.recv();
        });
        (got, release, thread)
    }

    #[test]
    fn a_heavy_test_waits_for_quiet_ones_and_quiet_ones_for_it() {
        let (first, second) = (quiet(), quiet());
        let (heavy_got, heavy_release, heavy) = hold_on_a_thread(exclusive);
        let wait = Duration::from_millis(100);
        assert!(
            heavy_got.recv_timeout(wait).is_err(),
            "heavy beside quiet ones"
        );
        drop((first, second));
        heavy_got.recv().unwrap();
        let (quiet_got, quiet_release, waiting) = hold_on_a_thread(quiet);
        assert!(
            quiet_got.recv_timeout(wait).is_err(),
            "quiet beside a heavy one"
        );
        heavy_release.send(()).unwrap();
        quiet_got.recv().unwrap();
        quiet_release.send(()).unwrap();
        heavy.join().unwrap();
        waiting.join().unwrap();
    }
}
