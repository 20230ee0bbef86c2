//! `hailer kernel ...`: the kernel's environment and images. The daemon does the work (only
//! it talks to the Docker engine); these commands send what the user asked for and print the
//! progress it streams back.

mod build;
mod image;
pub(crate) mod job_view;

use anyhow::{Context as _, bail};
use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::{InstallLocalParams, KernelJobLine};

use crate::daemon_client;
use crate::http::Endpoint;
use crate::output::outln;

pub(crate) use build::build;
pub(crate) use image::{pull, stop};

pub(crate) async fn install_local(
    home: &HailerHome,
    python: Option<std::path::PathBuf>,
    wheelhouse: Option<std::path::PathBuf>,
    verbose: bool,
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
    outln!(
        "Preparing the unsafe-local kernel's Python environment (the first time takes a few minutes)..."
    )?;
    run_job(
        &connected.endpoint,
        "/v1/kernel/install-local",
        &params,
        verbose,
    )
    .await?;
    Ok(())
}

/// The images of this workspace's kernel.
struct Images {
    /// What sessions use: `[kernel].image` (or `HAILER_KERNEL_IMAGE`), else the published name
    /// of this Hailer's kernel contract.
    used: String,
    /// What a build starts from: `--base-image`, `HAILER_KERNEL_BASE_IMAGE`, `[kernel]
    /// base_image`, else the recipe's default.
    base: String,
}

/// The images `overrides` (with the client's variables and the workspace's file) lead to. A
/// configuration that does not load falls back to the defaults, with a warning; a bad
/// `--base-image` is an error, since the user asked for it by name.
fn effective_images(overrides: &Overrides) -> anyhow::Result<Images> {
    let contract = hailer_kernel_bundle::contract();
    let defaults = Images {
        used: hailer_kernel_bundle::default_image_name(&contract),
        base: hailer_kernel_bundle::DEFAULT_BASE_IMAGE.to_owned(),
    };
    let inputs = LoadInputs::from_process(overrides.clone())?;
    match hailer_config::load(&inputs) {
        Ok(loaded) => Ok(Images {
            used: loaded.config.kernel.image.unwrap_or(defaults.used),
            base: loaded.config.kernel.base_image.unwrap_or(defaults.base),
        }),
        Err(error) => {
            if let Some(problem) = error
                .fatal
                .iter()
                .find(|problem| problem.key.as_deref() == Some("base_image"))
            {
                bail!("{}\n  {}", problem.message, problem.hint);
            }
            eprintln!(
                "hailer: the configuration has problems (`hailer config check` lists them); \
                 using the default images"
            );
            Ok(defaults)
        }
    }
}

fn effective_image(overrides: &Overrides) -> anyhow::Result<String> {
    Ok(effective_images(overrides)?.used)
}

/// `hailer kernel contract`: what this Hailer's kernel is, for people and release scripts.
pub(crate) fn contract(overrides: &Overrides, json: bool) -> anyhow::Result<()> {
    let contract = hailer_kernel_bundle::contract();
    let images = effective_images(overrides)?;
    if json {
        let value = serde_json::json!({
            "contract": contract,
            "marimo": hailer_kernel_bundle::MARIMO_VERSION,
            "publishedRepository": hailer_kernel_bundle::PUBLISHED_REPOSITORY,
            "publishedImage": hailer_kernel_bundle::default_image_name(&contract),
            "image": images.used,
            "baseImage": images.base,
            "defaultBaseImage": hailer_kernel_bundle::DEFAULT_BASE_IMAGE,
        });
        outln!("{value}")?;
    } else {
        outln!(
            "Kernel contract: {contract} (marimo {})",
            hailer_kernel_bundle::MARIMO_VERSION
        )?;
        outln!("Image:           {}", images.used)?;
        outln!("Base image:      {}", images.base)?;
    }
    Ok(())
}

/// What a finished job reported.
struct Done {
    image: Option<String>,
    contract: String,
    command: Option<String>,
}

/// Posts a job and shows its progress ([`job_view`]); ends with one summary line naming the
/// log that holds the job's whole output. A failed job is an error that ends with the last
/// lines of that output and the log's name.
async fn run_job<B: serde::Serialize>(
    endpoint: &Endpoint,
    path: &str,
    body: &B,
    verbose: bool,
) -> anyhow::Result<Done> {
    let mut view = job_view::JobView::new(verbose);
    let mut end: Option<KernelJobLine> = None;
    let mut on_line = |bytes: &[u8]| -> anyhow::Result<()> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let line: KernelJobLine =
            serde_json::from_slice(bytes).context("hailerd sent a line this client cannot read")?;
        match line {
            KernelJobLine::Progress { line, output, step } => {
                view.line(&line, output, step.as_ref());
                view.take_write_error()?;
            }
            other => end = Some(other),
        }
        Ok(())
    };
    let posted = endpoint.post_lines(path, body, &mut on_line).await;
    let summary = end.as_ref().map(|last| view.end(last));
    if summary.is_none() {
        view.finish(false);
    }
    tracing::debug!(path, elapsed = ?view.elapsed(), "job ended");
    posted?;
    view.take_write_error()?;
    match (end, summary) {
        (
            Some(KernelJobLine::Done {
                image,
                contract,
                command,
                ..
            }),
            Some(summary),
        ) => {
            outln!("{summary}")?;
            Ok(Done {
                image,
                contract,
                command,
            })
        }
        (Some(KernelJobLine::Failed { .. }), Some(summary)) => bail!("{summary}"),
        _ => {
            bail!("hailerd ended the reply before the job finished; `hailer daemon logs` says why")
        }
    }
}
