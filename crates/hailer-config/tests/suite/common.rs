//! Helpers shared by the integration tests: temporary workspaces and inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};

use hailer_config::{ClientEnv, LoadInputs, Overrides};
use tempfile::TempDir;

/// A temporary folder holding a workspace (with a `pyproject.toml` marker) and a home folder.
pub(crate) struct Scratch {
    pub dir: TempDir,
}

impl Scratch {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        std::fs::write(
            dir.path().join("ws/pyproject.toml"),
            "[project]\nname = \"t\"\n",
        )
        .unwrap();
        Self { dir }
    }

    /// A workspace whose hailer.toml holds these bytes.
    pub(crate) fn with_config(bytes: &[u8]) -> Self {
        let scratch = Self::new();
        scratch.write("hailer.toml", bytes);
        scratch
    }

    /// [`Self::with_config`], with the file's settings that need trust agreed to, as
    /// `hailer trust` would.
    pub(crate) fn trusted_with_config(bytes: &[u8]) -> Self {
        let scratch = Self::with_config(bytes);
        scratch.trust();
        scratch
    }

    /// Records the current configuration file's settings as trusted.
    pub(crate) fn trust(&self) {
        let loaded = hailer_config::load(&self.inputs());
        if let Ok(loaded) = loaded {
            hailer_config::grant_trust(
                &loaded.trust,
                &hailer_config::TrustStore::in_config_dir(&self.config_dir()),
            )
            .unwrap();
        }
    }

    pub(crate) fn workspace(&self) -> PathBuf {
        self.dir.path().join("ws").canonicalize().unwrap()
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.dir.path().join("home").canonicalize().unwrap()
    }

    /// The user's Hailer configuration folder (where trust is recorded).
    pub(crate) fn config_dir(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    pub(crate) fn write(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.workspace().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }

    pub(crate) fn mkdir(&self, relative: &str) -> PathBuf {
        let path = self.workspace().join(relative);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    /// Inputs as a client started in the workspace would send them.
    pub(crate) fn inputs(&self) -> LoadInputs {
        self.inputs_in(&self.workspace())
    }

    pub(crate) fn inputs_in(&self, cwd: &Path) -> LoadInputs {
        LoadInputs {
            cwd: cwd.to_path_buf(),
            home: Some(self.home()),
            app_data: hailer_config::AppDataDirs::default(),
            overrides: Overrides::default(),
            env: ClientEnv::new(),
            config_dir: Some(self.config_dir()),
        }
    }
}
