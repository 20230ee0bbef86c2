//! `data_files` and `period_files` stay current: the starter notebook lists the data folder
//! when its cells run, at the kernel's start. Before a run, when the folder changed since the
//! active notebook's lists were made, the lists are made again in place (a scratchpad sees the
//! notebook's globals by reference, so the next run and every later one see the new lists).
//! The folder is read on this machine: a docker kernel's data folder is mounted from it.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Session;
use hailerd_kernel::Kernel;

/// The code that makes the lists again, in place; a notebook without them is left alone.
const REFRESH: &str = "\
try:
    data_files[:] = list_data_files(DATA_DIR)
    period_files[:] = list_periods(DATA_DIR)
except Exception:
    pass
";

/// How long the refresh may take.
const REFRESH_TIMEOUT: Duration = Duration::from_secs(30);

/// As deep as `hailer_kernel.data.list_data_files` looks, and as many entries.
const MAX_DEPTH: usize = 4;
const MAX_ENTRIES: usize = 5000;

/// What the lists of each notebook were made from.
#[derive(Debug, Default)]
pub(super) struct DataSeen {
    /// The folder's fingerprint when the kernel started (and its notebooks made their lists).
    at_start: Option<u64>,
    /// A notebook's fingerprint since its lists were made again.
    refreshed: HashMap<PathBuf, u64>,
}

/// A fingerprint of the data files under `dir`: names, sizes and modification times. Hidden
/// entries are left out, as the kernel's listing leaves them out.
pub(super) fn fingerprint(dir: &Path) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let mut pending = vec![(dir.to_path_buf(), 0usize)];
    let mut seen = 0usize;
    let mut entries: Vec<(String, u64, Option<std::time::SystemTime>)> = Vec::new();
    while let Some((folder, depth)) = pending.pop() {
        let Ok(listing) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in listing.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                break;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name.starts_with("~$") {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < MAX_DEPTH {
                    pending.push((entry.path(), depth + 1));
                }
                continue;
            }
            let metadata = entry.metadata().ok();
            entries.push((
                entry.path().to_string_lossy().into_owned(),
                metadata.as_ref().map_or(0, std::fs::Metadata::len),
                metadata.and_then(|metadata| metadata.modified().ok()),
            ));
        }
    }
    entries.sort();
    entries.hash(&mut hasher);
    hasher.finish()
}

impl Session {
    /// Remembers the data folder as a kernel about to start will list it.
    pub(super) fn data_listed_at_start(&self, data_dir: &Path) {
        let print = hailer_agent::off_the_worker(|| fingerprint(data_dir));
        if let Ok(mut seen) = self.data_seen.lock() {
            *seen = DataSeen {
                at_start: Some(print),
                refreshed: HashMap::new(),
            };
        }
    }

    /// Makes `notebook`'s `data_files` and `period_files` again when the data folder changed
    /// since they were made. The run is recorded in the audit trail as Hailer's own; a failure
    /// only leaves the lists as they were.
    pub(super) async fn refresh_data_lists(&self, kernel: &Kernel, notebook: &Path) {
        let data_dir = self.running_kernel().map_or_else(
            || self.loaded().config.hailer.data_dir.clone(),
            |running| running.data_dir,
        );
        let Ok(print) = tokio::task::spawn_blocking(move || fingerprint(&data_dir)).await else {
            return;
        };
        let current = self
            .data_seen
            .lock()
            .ok()
            .and_then(|seen| seen.refreshed.get(notebook).copied().or(seen.at_start));
        if current == Some(print) {
            return;
        }
        let Ok(record) = self
            .audit
            .start_exec(Some("hailer"), &kernel.relative_name(notebook), REFRESH)
            .await
        else {
            return;
        };
        let result = kernel.exec(notebook, REFRESH, REFRESH_TIMEOUT).await;
        record.finish(&result);
        if result.is_ok_and(|response| response.success)
            && let Ok(mut seen) = self.data_seen.lock()
        {
            seen.refreshed.insert(notebook.to_path_buf(), print);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_fingerprint_changes_with_a_new_file_and_not_with_a_hidden_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), "x\n1\n").unwrap();
        let first = fingerprint(dir.path());
        assert_eq!(first, fingerprint(dir.path()));
        std::fs::write(dir.path().join(".hidden.csv"), "x\n").unwrap();
        assert_eq!(first, fingerprint(dir.path()));
        std::fs::create_dir(dir.path().join("more")).unwrap();
        std::fs::write(dir.path().join("more").join("b.parquet"), "PAR1").unwrap();
        assert_ne!(first, fingerprint(dir.path()));
    }
}
