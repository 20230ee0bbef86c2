//! `.hailer/notebook.json`: the active notebook and the recently used ones.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent notebooks are remembered.
const MAX_RECENT: usize = 10;
const FILE_NAME: &str = "notebook.json";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotebookState {
    #[serde(default)]
    pub active: Option<String>,
    #[serde(default)]
    pub recent: Vec<String>,
}

impl NotebookState {
    fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(FILE_NAME)
    }

    /// The stored state; an unreadable file counts as none.
    pub fn load(state_dir: &Path) -> Self {
        std::fs::read(Self::path(state_dir))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }

    /// Makes `name` active and first among the recent ones.
    pub fn activate(&mut self, name: &str) {
        self.active = Some(name.to_owned());
        self.recent.retain(|recent| recent != name);
        self.recent.insert(0, name.to_owned());
        self.recent.truncate(MAX_RECENT);
    }

    /// Writes the state atomically.
    pub fn save(&self, state_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(state_dir)?;
        let mut temp = tempfile::NamedTempFile::new_in(state_dir)?;
        serde_json::to_writer_pretty(&mut temp, self)?;
        temp.write_all(b"\n")?;
        temp.as_file().sync_all()?;
        temp.persist(Self::path(state_dir))
            .map_err(|error| error.error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn activation_orders_recent_and_survives_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = NotebookState::load(dir.path());
        assert_eq!(state, NotebookState::default());
        for index in 0..12 {
            state.activate(&format!("n{index}.py"));
        }
        state.activate("n5.py");
        assert_eq!(state.active.as_deref(), Some("n5.py"));
        assert_eq!(state.recent.len(), MAX_RECENT);
        assert_eq!(state.recent[0], "n5.py");
        assert_eq!(state.recent.iter().filter(|n| *n == "n5.py").count(), 1);
        state.save(dir.path()).unwrap();
        assert_eq!(NotebookState::load(dir.path()), state);
        std::fs::write(dir.path().join(FILE_NAME), b"{broken").unwrap();
        assert_eq!(NotebookState::load(dir.path()), NotebookState::default());
    }
}
