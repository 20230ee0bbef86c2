//! `hailer kernel ...`: the kernel's environment and images.

use std::time::Duration;

use anyhow::{Context as _, bail};
use hailer_config::home::HailerHome;
use hailer_protocol::{InstallLocalParams, InstallLocalResponse, InstallLocalStep};

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
    let mut outcome: Option<InstallLocalStep> = None;
    let mut on_line = |line: &[u8]| -> anyhow::Result<()> {
        let step: InstallLocalStep = serde_json::from_slice(line)
            .context("hailerd sent a progress line this client cannot read")?;
        match step {
            InstallLocalStep::Progress { line } => println!("  {line}"),
            last => outcome = Some(last),
        }
        Ok(())
    };
    let whole = connected
        .endpoint
        .post_lines(
            "/v1/kernel/install-local",
            &params,
            INSTALL_TIMEOUT,
            &mut on_line,
        )
        .await?;
    let ready: InstallLocalResponse = match (whole, outcome) {
        (Some(reply), _) => reply.json()?,
        (None, Some(InstallLocalStep::Ready(ready))) => ready,
        (None, Some(InstallLocalStep::Failed(error))) => match error.hint {
            Some(hint) => bail!("{}\n  {hint}", error.message),
            None => bail!("{}", error.message),
        },
        (None, _) => bail!("hailerd stopped answering before the environment was ready"),
    };
    println!(
        "{} the environment for kernel contract {}: {}",
        if ready.reused { "Reused" } else { "Created" },
        ready.contract,
        ready.venv
    );
    Ok(())
}
