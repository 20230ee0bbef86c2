//! Where Hailer keeps its own files, outside any workspace.
//!
//! `HAILER_HOME` overrides every location at once, so tests and portable setups are hermetic:
//! `$HAILER_HOME/{config,state,data,run}`. Without it the platform's conventions apply (XDG on
//! Linux, `~/Library/Application Support/Hailer` on macOS, `%APPDATA%` and `%LOCALAPPDATA%` on
//! Windows: `hailer_platform::folders`): configuration, state (logs), data (the managed Python
//! environments) and the runtime directory (the daemon's lock and runtime file).

use std::path::{Path, PathBuf};

use hailer_platform::Os;
use hailer_platform::folders::{self, Layout};

/// The environment variable that relocates every Hailer path.
pub const HAILER_HOME_VAR: &str = "HAILER_HOME";

/// Hailer's own directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HailerHome {
    pub config_dir: PathBuf,
    pub state_dir: PathBuf,
    pub data_dir: PathBuf,
    pub runtime_dir: PathBuf,
}

/// Why the home directories could not be worked out.
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    #[error(
        "cannot find your home folder to place Hailer's files; set {HAILER_HOME_VAR} to a folder"
    )]
    NoHome,
}

impl HailerHome {
    /// Every path under one root, as `HAILER_HOME` asks.
    pub fn under(root: &Path) -> Self {
        Self::from(Layout::under(root))
    }

    /// `HAILER_HOME` when the given value is set and not empty, else the platform's directories.
    pub fn resolve(hailer_home: Option<&std::ffi::OsStr>) -> Result<Self, HomeError> {
        if let Some(root) = hailer_home.filter(|value| !value.is_empty()) {
            return Ok(Self::under(Path::new(root)));
        }
        let bases = folders::system_bases().ok_or(HomeError::NoHome)?;
        Ok(Self::from(folders::layout(Os::CURRENT, None, &bases)))
    }

    /// From this process's own environment.
    pub fn from_env() -> Result<Self, HomeError> {
        Self::resolve(std::env::var_os(HAILER_HOME_VAR).as_deref())
    }

    /// The daemon's runtime file: pid, port, token and version.
    pub fn runtime_file(&self) -> PathBuf {
        self.runtime_dir.join("hailerd.json")
    }

    /// The lock file whose holder is the one running daemon.
    pub fn daemon_lock(&self) -> PathBuf {
        self.runtime_dir.join("hailerd.lock")
    }

    /// The daemon's log folder.
    pub fn log_dir(&self) -> PathBuf {
        self.state_dir.join("logs")
    }
}

impl From<Layout> for HailerHome {
    fn from(layout: Layout) -> Self {
        Self {
            config_dir: layout.config,
            state_dir: layout.state,
            data_dir: layout.data,
            runtime_dir: layout.runtime,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn hailer_home_moves_every_path() {
        let home = HailerHome::resolve(Some(std::ffi::OsStr::new("/tmp/h"))).unwrap();
        for path in [
            &home.config_dir,
            &home.state_dir,
            &home.data_dir,
            &home.runtime_dir,
        ] {
            assert!(path.starts_with("/tmp/h"), "{}", path.display());
        }
        assert!(home.runtime_file().starts_with("/tmp/h/run"));
        assert!(home.log_dir().starts_with("/tmp/h/state"));
    }

    #[test]
    fn empty_hailer_home_is_ignored() {
        let home = HailerHome::resolve(Some(std::ffi::OsStr::new(""))).unwrap();
        assert!(!home.config_dir.starts_with("config"));
    }
}
