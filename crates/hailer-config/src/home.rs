//! Where Hailer keeps its own files, outside any workspace.
//!
//! `HAILER_HOME` overrides every location at once, so tests and portable setups are hermetic:
//! `$HAILER_HOME/{config,state,data,run}`. Without it the platform's conventions apply (XDG on
//! Linux, `~/Library/Application Support/Hailer` on macOS, `%APPDATA%` and `%LOCALAPPDATA%` on
//! Windows: `hailer_platform::folders`): configuration, state (logs), data (the managed Python
//! environments) and the runtime directory (the daemon's lock and runtime file).
//!
//! `HAILER_KERNEL_ENVS` moves only the managed kernel environments (a few hundred megabytes
//! each), for example onto a larger disk, or into one folder that several Hailer homes share.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use hailer_platform::Layout;
use hailer_platform::Os;

/// The environment variable that relocates every Hailer path.
pub(crate) const HAILER_HOME_VAR: &str = "HAILER_HOME";

/// The environment variable that relocates the managed kernel environments alone.
pub(crate) const KERNEL_ENVS_VAR: &str = "HAILER_KERNEL_ENVS";

/// Hailer's own directories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HailerHome {
    /// Settings the user keeps outside any workspace: trust records, the credential file
    /// (`$HAILER_HOME/config` when that is set).
    pub config_dir: PathBuf,
    /// What Hailer writes as it runs: logs and the chat's input history
    /// (`$HAILER_HOME/state`).
    pub state_dir: PathBuf,
    /// What Hailer makes and keeps: the managed Python environments and kernel records
    /// (`$HAILER_HOME/data`).
    pub data_dir: PathBuf,
    /// The daemon's lock and runtime file with its port and token, private to the user
    /// (`$HAILER_HOME/run`).
    pub runtime_dir: PathBuf,
    /// Where the unsafe-local kernel's managed environments live, one folder per kernel
    /// contract: `HAILER_KERNEL_ENVS`, else `<data>/kernels`.
    pub kernel_envs_dir: PathBuf,
}

/// Why the home directories could not be worked out.
#[derive(Debug, thiserror::Error)]
pub enum HomeError {
    /// `HAILER_HOME` is unset and the system reports no home folder for the user.
    #[error(
        "cannot find your home folder to place Hailer's files; set {HAILER_HOME_VAR} to a folder"
    )]
    NoHome,
    /// `HAILER_KERNEL_ENVS` holds this relative path; only an absolute one is accepted.
    #[error(
        "{KERNEL_ENVS_VAR} must name a folder by its full path, not {0:?}; set it to an absolute \
         path or unset it to keep the environments in Hailer's data folder"
    )]
    RelativeKernelEnvs(PathBuf),
}

impl HailerHome {
    /// Every path under one root, as `HAILER_HOME` asks.
    pub fn under(root: &Path) -> Self {
        Self::from(Layout::under(root))
    }

    /// `HAILER_HOME` when the given value is set and not empty, else the platform's directories.
    pub fn resolve(hailer_home: Option<&OsStr>) -> Result<Self, HomeError> {
        Self::resolve_with(hailer_home, None)
    }

    /// [`Self::resolve`], with the kernel environments moved to `kernel_envs` when it is set and
    /// not empty; it must be an absolute path.
    pub fn resolve_with(
        hailer_home: Option<&OsStr>,
        kernel_envs: Option<&OsStr>,
    ) -> Result<Self, HomeError> {
        let mut home = match hailer_home.filter(|value| !value.is_empty()) {
            Some(root) => Self::under(Path::new(root)),
            None => {
                let bases = hailer_platform::system_bases().ok_or(HomeError::NoHome)?;
                Self::from(hailer_platform::folder_layout(Os::CURRENT, None, &bases))
            }
        };
        if let Some(folder) = kernel_envs.filter(|value| !value.is_empty()) {
            let folder = PathBuf::from(folder);
            if !folder.is_absolute() {
                return Err(HomeError::RelativeKernelEnvs(folder));
            }
            home.kernel_envs_dir = folder;
        }
        Ok(home)
    }

    /// From this process's own environment.
    pub fn from_env() -> Result<Self, HomeError> {
        Self::resolve_with(
            std::env::var_os(HAILER_HOME_VAR).as_deref(),
            std::env::var_os(KERNEL_ENVS_VAR).as_deref(),
        )
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
            kernel_envs_dir: layout.data.join("kernels"),
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
        let home = HailerHome::resolve(Some(OsStr::new("/tmp/h"))).unwrap();
        for path in [
            &home.config_dir,
            &home.state_dir,
            &home.data_dir,
            &home.runtime_dir,
            &home.kernel_envs_dir,
        ] {
            assert!(path.starts_with("/tmp/h"), "{}", path.display());
        }
        assert!(home.runtime_file().starts_with("/tmp/h/run"));
        assert!(home.log_dir().starts_with("/tmp/h/state"));
    }

    #[test]
    fn empty_hailer_home_is_ignored() {
        let home = HailerHome::resolve(Some(OsStr::new(""))).unwrap();
        assert!(!home.config_dir.starts_with("config"));
    }

    #[test]
    fn kernel_envs_move_alone_and_only_to_a_full_path() {
        let shared = if cfg!(windows) {
            r"D:\Hailer envs\kernels"
        } else {
            "/mnt/big disk/hailer kernels"
        };
        let home =
            HailerHome::resolve_with(Some(OsStr::new("/tmp/h")), Some(OsStr::new(shared))).unwrap();
        assert_eq!(home.kernel_envs_dir, PathBuf::from(shared));
        assert_eq!(
            home.data_dir,
            HailerHome::under(Path::new("/tmp/h")).data_dir
        );
        assert_eq!(
            HailerHome::resolve_with(Some(OsStr::new("/tmp/h")), Some(OsStr::new("")))
                .unwrap()
                .kernel_envs_dir,
            Path::new("/tmp/h").join("data").join("kernels")
        );
        for hostile in ["kernels", "./envs", "../../etc", "~/envs"] {
            let error =
                HailerHome::resolve_with(Some(OsStr::new("/tmp/h")), Some(OsStr::new(hostile)))
                    .unwrap_err();
            let said = error.to_string();
            assert!(
                said.contains("HAILER_KERNEL_ENVS") && said.contains(hostile),
                "{said}"
            );
        }
    }
}
