//! Unsafe-local servers left by a daemon that was killed: nothing to do on Windows. Each server
//! runs in a Job Object that ends its processes when its last handle closes, and the daemon holds
//! that handle, so a killed daemon's kernels end with it (`hailer_platform::Job`).

use std::path::{Path, PathBuf};

/// Nothing is recorded: the job object ends the server with the daemon.
pub(crate) fn remember(_data_dir: &Path, _pid: i32) -> Option<PathBuf> {
    None
}

/// Nothing was recorded.
pub(crate) fn forget(_path: &Path) {}

/// Nothing is left to end.
pub async fn reap(_data_dir: &Path) -> usize {
    0
}
