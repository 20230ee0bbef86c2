//! Docker kernels outliving a daemon that was killed: at start-up the daemon removes the
//! containers and networks of every workspace whose owner is gone, not only those of the
//! workspaces it is next asked to use.
//!
//! The engine's labels name each object's workspace folder and owner lock; an object whose
//! owner lock in that folder's `.hailer/` is missing or not held belongs to no live session. A
//! lock file this daemon cannot open (another user's workspace on a shared engine) counts as
//! held.

use std::path::Path;

use hailer_docker::Engine;
use hailer_docker::{Removal, cleanup_all_leftovers};

/// Removes every labelled docker object whose owner is not alive; `None` when no engine
/// answers (docker not installed or not running: nothing to clean).
pub async fn reap() -> Option<Removal> {
    let engine = Engine::connect().await.ok()?;
    let alive = |workspace: &Path, owner: &str| {
        !crate::owner_lock::OwnerLock::is_gone(&owner_lock_path(workspace, owner))
    };
    match cleanup_all_leftovers(&engine, alive).await {
        Ok(removal) => Some(removal),
        Err(error) => {
            tracing::warn!(%error, "could not look for docker kernels left by an earlier daemon");
            None
        }
    }
}

/// The owner lock of `owner` in the workspace folder `workspace`.
pub(crate) fn owner_lock_path(workspace: &Path, owner: &str) -> std::path::PathBuf {
    hailer_platform::state_folder_of(workspace).join(format!("owner-{owner}.lock"))
}
