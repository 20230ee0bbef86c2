//! `hailer kernel ...`: the kernel's environment and images.

use std::time::Duration;

use hailer_config::home::HailerHome;
use hailer_protocol::{InstallLocalParams, InstallLocalResponse};

use crate::daemon_client;

/// Installing the environment downloads and unpacks a few hundred megabytes.
const INSTALL_TIMEOUT: Duration = Duration::from_secs(1800);

pub async fn install_local(
    home: &HailerHome,
    python: Option<std::path::PathBuf>,
    wheelhouse: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let connected = daemon_client::find_or_start(home).await?;
    let absolute = |path: std::path::PathBuf| -> anyhow::Result<String> {
        Ok(std::path::absolute(path)?.display().to_string())
    };
    let params = InstallLocalParams {
        python: python.map(absolute).transpose()?,
        wheelhouse: wheelhouse.map(absolute).transpose()?,
        path: std::env::var("PATH").ok(),
    };
    println!(
        "Preparing the unsafe-local kernel's Python environment (the first time takes a few minutes)..."
    );
    let ready: InstallLocalResponse = connected
        .endpoint
        .post("/v1/kernel/install-local", &params, INSTALL_TIMEOUT)
        .await?
        .json()?;
    println!(
        "{} the environment for kernel contract {}: {}",
        if ready.reused { "Reused" } else { "Created" },
        ready.contract,
        ready.venv
    );
    Ok(())
}
