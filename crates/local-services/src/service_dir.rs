//! The temporary directory of one throwaway server (data, socket, logs), and
//! the clean-up of directories left behind by processes that were killed.
//!
//! A process that is killed outright cannot remove its own directory (its
//! servers still die with it, see `parent_death`), and a Postgres cluster is
//! tens of megabytes. So each directory records its owner's pid, and the next
//! start removes the directories of owners that are gone.

use std::path::Path;

use anyhow::Context;
use tempfile::TempDir;

const OWNER_FILE: &str = "owner.pid";

/// Creates `$TMPDIR/local-services-<kind>-XXXXXX`, owned by this process,
/// after removing such directories whose owner process no longer exists.
pub(crate) fn create(kind: &str) -> anyhow::Result<TempDir> {
    let prefix = format!("local-services-{kind}-");
    let parent = std::env::temp_dir();
    remove_abandoned(&parent, &prefix);
    let dir = tempfile::Builder::new()
        .prefix(&prefix)
        .tempdir_in(&parent)
        .with_context(|| format!("create a temporary directory in {}", parent.display()))?;
    std::fs::write(dir.path().join(OWNER_FILE), std::process::id().to_string())
        .with_context(|| format!("write the owner file in {}", dir.path().display()))?;
    Ok(dir)
}

fn remove_abandoned(parent: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let is_ours = entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.starts_with(prefix));
        if !is_ours {
            continue;
        }
        let dir = entry.path();
        // No owner file (yet) means another process is creating it right
        // now, or it is not ours: leave it.
        let owner = std::fs::read_to_string(dir.join(OWNER_FILE))
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok());
        if let Some(owner) = owner {
            if !Path::new("/proc").join(owner.to_string()).exists() {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}
