//! `.hailer/notebook.json`: the active notebook and the recently used ones.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent notebooks are remembered.
const MAX_RECENT: usize = 10;
const FILE_NAME: &str = "notebook.json";
/// A real state file is a few hundred bytes.
const MAX_FILE_BYTES: u64 = 64 * 1024;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
/// The workspace's remembered notebooks (`notebook.json` in the state folder).
pub struct NotebookState {
    #[serde(default)]
    /// The active notebook, relative to the notebooks folder.
    pub active: Option<String>,
    #[serde(default)]
    /// Recently active notebooks, most recent first.
    pub recent: Vec<String>,
}

impl NotebookState {
    fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(FILE_NAME)
    }

    /// The stored state; an unreadable file counts as none.
    #[cfg(test)]
    pub fn load(state_dir: &Path) -> Self {
        Self::read(state_dir).ok().flatten().unwrap_or_default()
    }

    /// The stored state with every name checked against the notebooks folder: an active
    /// notebook that is not a notebook there (a path out of it, a missing file) is dropped, so
    /// the configured notebook opens instead, and the warning says so. Recent names that are not
    /// notebooks there are dropped quietly.
    pub fn load_checked(state_dir: &Path, notebooks_dir: &Path) -> (Self, Option<String>) {
        let stored = match Self::read(state_dir) {
            Ok(Some(stored)) => stored,
            Ok(None) => return (Self::default(), None),
            Err(reason) => {
                return (
                    Self::default(),
                    Some(format!(
                        ".hailer/notebook.json {reason}; the configured notebook opens instead."
                    )),
                );
            }
        };
        let known = |name: &str| {
            crate::notebooks::resolve(notebooks_dir, name)
                .ok()
                .filter(|file| file.name == name)
                .map(|file| file.name)
        };
        let mut warning = None;
        let active = stored.active.as_deref().and_then(|name| {
            let found = known(name);
            if found.is_none() {
                let shown: String = name.chars().take(80).collect();
                warning = Some(format!(
                    ".hailer/notebook.json names {shown:?} as the active notebook, which is not a \
                     notebook in {}; the configured notebook opens instead.",
                    notebooks_dir.display()
                ));
            }
            found
        });
        let mut recent: Vec<String> = stored.recent.iter().filter_map(|n| known(n)).collect();
        recent.dedup();
        recent.truncate(MAX_RECENT);
        (Self { active, recent }, warning)
    }

    /// `Ok(None)` when there is no file; `Err` says what is wrong with one.
    fn read(state_dir: &Path) -> Result<Option<Self>, String> {
        use std::io::Read;
        let file = match std::fs::File::open(Self::path(state_dir)) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("cannot be read ({error})")),
        };
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| format!("cannot be read ({error})"))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(format!("is larger than {MAX_FILE_BYTES} bytes"));
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| format!("is not valid ({error})"))
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
        hailer_platform::ensure_state_folder(state_dir)?;
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

    #[test]
    fn a_stored_active_notebook_must_be_a_notebook_in_the_folder() {
        let state = tempfile::tempdir().unwrap();
        let notebooks = tempfile::tempdir().unwrap();
        std::fs::write(
            notebooks.path().join("sales.py"),
            "import marimo\napp = marimo.App()\n",
        )
        .unwrap();
        let outside = notebooks.path().parent().unwrap().join("outside.py");
        let big = format!("{{\"active\": \"{}\"}}", "a".repeat(70 * 1024));
        let cases: Vec<(String, Option<&str>, Option<&str>)> = vec![
            (
                r#"{"active": "sales.py", "recent": ["sales.py", "gone.py"]}"#.into(),
                Some("sales.py"),
                None,
            ),
            (
                r#"{"active": "../../etc/passwd"}"#.into(),
                None,
                Some("names \"../../etc/passwd\" as the active notebook"),
            ),
            (
                format!(r#"{{"active": "{}"}}"#, outside.display()),
                None,
                Some("which is not a notebook in"),
            ),
            (
                r#"{"active": "gone.py"}"#.into(),
                None,
                Some("the configured notebook opens instead"),
            ),
            (
                r#"{"active": "SALES"}"#.into(),
                None,
                Some("as the active notebook"),
            ),
            (
                r#"{"active": 7}"#.into(),
                None,
                Some(".hailer/notebook.json is not valid"),
            ),
            (r"[1, 2]".into(), None, Some("is not valid")),
            (big, None, Some("is larger than 65536 bytes")),
        ];
        for (text, active, warning) in cases {
            std::fs::write(state.path().join(FILE_NAME), &text).unwrap();
            let (loaded, said) = NotebookState::load_checked(state.path(), notebooks.path());
            assert_eq!(loaded.active.as_deref(), active, "{text:.80}");
            match (warning, said) {
                (None, None) => {}
                (Some(expected), Some(said)) => assert!(said.contains(expected), "{said}"),
                (expected, said) => panic!("{text:.80}: expected {expected:?}, said {said:?}"),
            }
            assert!(
                loaded.recent.iter().all(|name| name == "sales.py"),
                "{loaded:?}"
            );
        }
        std::fs::remove_file(state.path().join(FILE_NAME)).unwrap();
        assert_eq!(
            NotebookState::load_checked(state.path(), notebooks.path()),
            (NotebookState::default(), None)
        );
    }
}
