//! The Chromium process behind a [`super::Browser`]: started headless in a
//! fresh profile with DevTools on a port of its own choosing, and killed
//! when dropped (its helper processes follow it by themselves).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::WAIT;

/// What this machine needs for Chromium to start as root and stay off the
/// network: no sandbox (root), no GPU (none here), and none of its
/// background traffic (updates, sync, QUIC probes), whose connections the
/// closed network refuses and whose retries only add noise and time.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    // A CDP client picks its port from the profile's DevToolsActivePort
    // file rather than guessing a free one: two tests never collide.
    "--remote-debugging-port=0",
];

/// A running Chromium. Dropping it kills the browser process and then
/// removes the profile, also while a test unwinds from a panic. Its
/// renderers, GPU and utility helpers exit on their own within a second once
/// the browser is gone (each watches its link to it), so they are not
/// chased one by one.
///
/// It stays in the test's process group on purpose: a Ctrl-C to
/// `cargo test`, which ends the test without running any drop, reaches
/// Chromium too, instead of leaving an orphan browser with DevTools open.
pub(super) struct Chromium {
    child: Child,
    /// The profile (`profile/`, Chromium's `--user-data-dir`, fresh and empty
    /// at start), Chromium's own output (`chromium.log`, outside the profile
    /// so that the profile starts empty) and its temporary files ($TMPDIR).
    /// An `Option` so that `drop` can take it and remove it after the kill,
    /// not before.
    home: Option<tempfile::TempDir>,
}

impl Chromium {
    /// Starts `$CHROMIUM`, or /usr/bin/chromium, on about:blank.
    pub(super) fn start() -> Chromium {
        let program = std::env::var_os("CHROMIUM")
            .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
        let home = tempfile::Builder::new()
            .prefix("bench-chromium-")
            .tempdir()
            .expect("creating a folder for chromium's profile");
        let log =
            File::create(home.path().join("chromium.log")).expect("creating chromium's log file");
        let child = Command::new(&program)
            .args(FLAGS)
            .arg(format!(
                "--user-data-dir={}",
                home.path().join("profile").display()
            ))
            .arg("about:blank")
            // Chromium keeps its singleton socket in a folder of its own under
            // $TMPDIR, which a killed Chromium leaves behind: here it is
            // inside our folder and goes with it.
            .env("TMPDIR", home.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("sharing chromium's log file"))
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "starting chromium ({}): {e}; install it (`apt-get install -y chromium`) \
                     or name it in $CHROMIUM",
                    program.display()
                )
            });
        Chromium {
            child,
            home: Some(home),
        }
    }

    /// The DevTools port and the browser's own WebSocket path (such as
    /// `/devtools/browser/<uuid>`), once Chromium has written them into the
    /// profile's DevToolsActivePort file.
    pub(super) fn devtools_endpoint(&mut self) -> (u16, String) {
        let file = self.home_path().join("profile/DevToolsActivePort");
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(endpoint) = read_endpoint(&file) {
                return endpoint;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "chromium exited ({status}) before opening DevTools; its output:\n{}",
                    self.log_tail()
                );
            }
            if Instant::now() >= deadline {
                panic!(
                    "timed out after {WAIT:?} waiting for chromium to write {}; its output:\n{}",
                    file.display(),
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last lines Chromium printed, for a panic message.
    pub(super) fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.home_path().join("chromium.log"))
            .unwrap_or_else(|e| format!("(chromium's log cannot be read: {e})"));
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    fn home_path(&self) -> &Path {
        self.home
            .as_ref()
            .map(tempfile::TempDir::path)
            .expect("chromium's home is only taken on drop")
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // SIGKILL, not SIGTERM: nothing of the profile is worth a clean
        // shutdown, and a kill cannot hang the test.
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(home) = self.home.take() {
            // The helpers may still be writing into the profile while they
            // exit: try again for a moment rather than leave it behind.
            let path = home.keep();
            for _ in 0..20 {
                if std::fs::remove_dir_all(&path).is_ok() || !path.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

/// `port\n/devtools/browser/<uuid>\n`, or None while the file is missing
/// or still being written.
fn read_endpoint(file: &Path) -> Option<(u16, String)> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut lines = text.lines();
    let port = lines.next()?.trim().parse().ok()?;
    let path = lines.next()?.trim();
    path.starts_with("/devtools/browser/")
        .then(|| (port, path.to_string()))
}
