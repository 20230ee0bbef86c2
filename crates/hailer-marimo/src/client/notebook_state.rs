//! What the client remembers per notebook: whether it had a session, and whether the next run
//! is on a fresh one. One async lock per notebook serialises opening and restarting its session.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Per-notebook memory, guarded by its own async lock.
#[derive(Debug, Default)]
pub(crate) struct NotebookState {
    /// A session for this notebook was seen or opened before.
    pub seen_session: bool,
    /// The session was replaced since the last run; the next run reports it.
    pub fresh_pending: bool,
}

/// The states of every notebook this client has touched.
#[derive(Debug, Default)]
pub(crate) struct NotebookStates(Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<NotebookState>>>>);

impl NotebookStates {
    /// The lock for `notebook` (created on first use).
    pub(crate) fn get(&self, notebook: &Path) -> Arc<tokio::sync::Mutex<NotebookState>> {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.entry(notebook.to_owned()).or_default().clone()
    }
}
