//! Makes a child process die with us: the one module allowed `unsafe`.
//!
//! Linux's `PR_SET_PDEATHSIG` asks the kernel to send the child a signal when
//! its parent exits, whether by return, panic, Ctrl-C or SIGKILL, so a
//! throwaway server cannot be left running. Two catches shape the callers:
//! - The signal fires when the *thread* that forked the child exits, not the
//!   process; children are therefore spawned from one thread that lives as
//!   long as the process (see `spawner`).
//! - Changing the user id clears the setting; std applies `uid`/`gid` before
//!   the `pre_exec` hook runs, so setting it here keeps it.

use std::io;
use std::os::unix::process::CommandExt;
use std::process::Command;

use rustix::process::{getpid, getppid, set_parent_process_death_signal, Signal};

/// Arranges for the child started by `command` to receive `signal` when this
/// process's spawning thread exits.
#[allow(unsafe_code)]
pub(crate) fn die_with_parent(command: &mut Command, signal: Signal) {
    let parent = getpid();
    let hook = move || -> io::Result<()> {
        set_parent_process_death_signal(Some(signal))?;
        // If we died between fork and prctl, the signal was never sent: the
        // child has been adopted already, so refuse to start it.
        if getppid() != Some(parent) {
            return Err(rustix::io::Errno::SRCH.into());
        }
        Ok(())
    };
    // SAFETY: `pre_exec` runs the hook in the forked child before exec, where
    // only async-signal-safe work is allowed. The hook makes two raw system
    // calls (prctl, getppid) through rustix and builds errors from raw OS
    // codes; it takes no locks and allocates nothing.
    unsafe {
        command.pre_exec(hook);
    }
}
