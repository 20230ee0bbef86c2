//! Unsafe-local kernels outliving a daemon that was killed: each running marimo server is recorded
//! under the data folder, and the next daemon ends the ones whose recording daemon is gone.
//!
//! Only one daemon runs per Hailer home (the singleton lock), so at start-up every record left
//! behind belongs to a dead daemon. A process is identified by pid plus start time, so a reused
//! pid is never signalled.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hailer_marimo::{ProcessId, descendants, end_processes, read_stat};
use serde::{Deserialize, Serialize};

/// One running marimo server of this daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    pid: i32,
    start_time: u64,
    daemon_pid: u32,
}

fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("local-kernels")
}

fn record_path(data_dir: &Path, pid: i32) -> PathBuf {
    folder(data_dir).join(format!("{pid}.json"))
}

/// Notes that this daemon runs marimo server `pid`; returns the record's path for [`forget`].
pub(crate) fn remember(data_dir: &Path, pid: i32) -> Option<PathBuf> {
    let stat = read_stat(pid)?;
    let record = Record {
        pid,
        start_time: stat.start_time,
        daemon_pid: std::process::id(),
    };
    let path = record_path(data_dir, pid);
    let written = std::fs::create_dir_all(folder(data_dir)).and_then(|()| {
        let text = serde_json::to_vec(&record).map_err(std::io::Error::other)?;
        std::fs::write(&path, text)
    });
    match written {
        Ok(()) => Some(path),
        Err(error) => {
            tracing::warn!(%error, path = %path.display(), "cannot record the kernel for cleanup");
            None
        }
    }
}

/// Drops the record of a server that was stopped properly.
pub(crate) fn forget(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// Ends the marimo servers (and their kernels) that daemons before this one left running;
/// returns how many were ended.
pub async fn reap(data_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(folder(data_dir)) else {
        return 0;
    };
    let mut ended = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let record = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok());
        forget(&path);
        let Some(record) = record else {
            continue;
        };
        if record.daemon_pid == std::process::id() {
            continue;
        }
        let alive = read_stat(record.pid).is_some_and(|stat| stat.start_time == record.start_time);
        if !alive {
            continue;
        }
        let server = ProcessId {
            pid: record.pid,
            start_time: record.start_time,
        };
        let mut processes = vec![server];
        processes.extend(
            descendants(record.pid)
                .into_iter()
                .map(|(process, _)| process),
        );
        tracing::info!(
            pid = record.pid,
            processes = processes.len(),
            "ending an unsafe-local kernel left by a daemon that did not stop cleanly"
        );
        end_processes(&processes, Duration::from_secs(2)).await;
        ended += 1;
    }
    ended
}
