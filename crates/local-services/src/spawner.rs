//! One long-lived thread that forks every throwaway server.
//!
//! The parent-death signal (see `parent_death`) is tied to the thread that
//! forked the child. A test's thread ends when the test does, which would
//! kill the shared server under the next test; this thread never ends (it
//! waits for requests for the rest of the process), so the signal fires only
//! when the whole process goes.

use std::io;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, PoisonError};
use std::thread;

struct SpawnRequest {
    command: Command,
    reply: mpsc::Sender<io::Result<Child>>,
}

static REQUESTS: Mutex<Option<mpsc::Sender<SpawnRequest>>> = Mutex::new(None);

/// Spawns `command` from the long-lived spawner thread and returns the child.
pub(crate) fn spawn(command: Command) -> io::Result<Child> {
    let requests = spawner()?;
    let (reply, answer) = mpsc::channel();
    requests
        .send(SpawnRequest { command, reply })
        .map_err(|_| io::Error::other("the process spawner thread has stopped"))?;
    answer
        .recv()
        .map_err(|_| io::Error::other("the process spawner thread dropped a request"))?
}

fn spawner() -> io::Result<mpsc::Sender<SpawnRequest>> {
    let mut requests = REQUESTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(sender) = requests.as_ref() {
        return Ok(sender.clone());
    }
    let (sender, receiver) = mpsc::channel::<SpawnRequest>();
    thread::Builder::new()
        .name("local-services-spawner".to_owned())
        .spawn(move || {
            // The sender lives in a static, so this loop runs until the
            // process exits, and with it the children's parent thread.
            for mut request in receiver {
                let _ = request.reply.send(request.command.spawn());
            }
        })?;
    *requests = Some(sender.clone());
    Ok(sender)
}
