//! What one docker kernel start needs, and the limits in the engine's units.

use std::path::PathBuf;
use std::time::Duration;

use hailer_config::MemoryLimit;

use crate::error::{Error, Result};

/// Where marimo listens inside the kernel, and where the forwarder listens.
pub(crate) const KERNEL_PORT: u16 = 2718;
/// The notebooks folder inside the kernel (an in-memory file system).
pub(crate) const NOTEBOOKS_IN_KERNEL: &str = "/work/notebooks";
/// The data folder inside the kernel (read-only).
pub(crate) const DATA_IN_KERNEL: &str = hailer_kernel_bundle::DATA_IN_KERNEL;
/// Where the token file is mounted.
pub(super) const TOKEN_IN_KERNEL: &str = "/run/secrets/hailer-token";
/// The kernel user's home folder in the image.
pub(super) const HOME_IN_KERNEL: &str = "/home/analyst";

/// Everything one start of a docker kernel needs.
#[derive(Debug, Clone)]
pub struct DockerSpec {
    /// The workspace folder (its `.hailer/` holds the token file while the kernel starts).
    pub workspace: PathBuf,
    /// The notebooks folder on this machine (never mounted; notebooks are copied).
    pub notebooks_dir: PathBuf,
    /// The data folder, mounted read-only at `/work/data`.
    pub data_dir: PathBuf,
    /// The kernel image, already checked against the contract.
    pub image: String,
    /// The kernel contract, for the labels.
    pub contract: String,
    /// The memory limit from hailer.toml (`4g`, `512m`, ...); no swap on top.
    pub memory: MemoryLimit,
    /// The CPU limit (already lowered to what the engine has).
    pub cpus: f64,
    /// Let the kernel reach the network (the internet, this machine, other containers).
    pub network: bool,
    /// The id of the session's owner lock.
    pub owner_id: String,
    /// 16 hex characters naming the workspace ([`crate::labels::workspace_id`]).
    pub workspace_id: String,
    /// How long marimo may take to answer.
    pub ready_timeout: Duration,
}

impl DockerSpec {
    /// The `.hailer/` folder of the workspace.
    pub fn state_dir(&self) -> PathBuf {
        hailer_platform::state_folder_of(&self.workspace)
    }
}

/// Docker's nano-CPUs for a CPU limit.
pub(crate) fn nano_cpus(cpus: f64) -> Result<i64> {
    if !(cpus.is_finite() && (0.01..=1024.0).contains(&cpus)) {
        return Err(Error::InvalidSetting(format!(
            "cpus = {cpus} under [kernel] is out of range; give a number such as 1, 1.5 or 2"
        )));
    }
    Ok((cpus * 1e9).round() as i64)
}

/// The user id and group id the kernel runs as: this user's own on a Linux host (so it can
/// read data files only the user may read), else the image's user.
pub fn kernel_user() -> (u32, u32) {
    hailer_kernel_bundle::docker_kernel_user(hailer_platform::host_ids_in_containers())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn cpus_in_nano_cpus() {
        assert_eq!(nano_cpus(2.0).unwrap(), 2_000_000_000);
        assert_eq!(nano_cpus(0.5).unwrap(), 500_000_000);
        assert!(nano_cpus(0.0).is_err());
        assert!(nano_cpus(f64::NAN).is_err());
    }
}
