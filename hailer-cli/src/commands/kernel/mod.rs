//! `hailer kernel ...`: the kernel's environment and images. The daemon does the work (only
//! it talks to the Docker engine); these commands send what the user asked for and print the
//! progress it streams back.

mod build;
mod image;

use anyhow::{Context as _, bail};
use hailer_config::home::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::{InstallLocalParams, KernelJobLine};

use crate::daemon_client;
use crate::http::Endpoint;

pub use build::build;
pub use image::{pull, stop};

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
    run_job(&connected.endpoint, "/v1/kernel/install-local", &params).await?;
    Ok(())
}

/// The image sessions of this workspace use: `[kernel].image` (or `HAILER_KERNEL_IMAGE`), else
/// the default name of this Hailer's kernel contract. A configuration that does not load falls
/// back to the default name, with a warning.
fn effective_image(overrides: &Overrides) -> anyhow::Result<String> {
    let contract = hailer_kernel_bundle::contract();
    let inputs = LoadInputs::from_process(overrides.clone())?;
    match hailer_config::load(&inputs) {
        Ok(loaded) => Ok(loaded
            .config
            .kernel
            .image
            .unwrap_or_else(|| hailer_kernel_bundle::default_image_name(&contract))),
        Err(_) => {
            eprintln!(
                "hailer: the configuration has problems (`hailer config check` lists them); \
                 using the default image name"
            );
            Ok(hailer_kernel_bundle::default_image_name(&contract))
        }
    }
}

/// What a finished job reported.
struct Done {
    image: Option<String>,
    contract: String,
    command: Option<String>,
}

/// Posts a job, prints its progress lines, and returns its end; a failed job is an error.
async fn run_job<B: serde::Serialize>(
    endpoint: &Endpoint,
    path: &str,
    body: &B,
) -> anyhow::Result<Done> {
    let mut end: Option<KernelJobLine> = None;
    let mut on_line = |bytes: &[u8]| -> anyhow::Result<()> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let line: KernelJobLine =
            serde_json::from_slice(bytes).context("hailerd sent a line this client cannot read")?;
        match line {
            KernelJobLine::Progress { line } => println!("{line}"),
            other => end = Some(other),
        }
        Ok(())
    };
    endpoint.post_lines(path, body, &mut on_line).await?;
    match end {
        Some(KernelJobLine::Done {
            image,
            contract,
            command,
        }) => Ok(Done {
            image,
            contract,
            command,
        }),
        Some(KernelJobLine::Failed { message, hint }) => match hint {
            Some(hint) => bail!("{message}\n  {hint}"),
            None => bail!("{message}"),
        },
        _ => {
            bail!("hailerd ended the reply before the job finished; `hailer daemon logs` says why")
        }
    }
}
