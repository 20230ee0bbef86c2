//! `hailer kernel build` and `hailer kernel pull` on the daemon's side: the kernel image built
//! through the engine (or its build context written out), or downloaded, with progress lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hailer_docker::{BuildOptions, Engine};
use hailer_docker::{HostInputs, HostSettings};
use hailer_protocol::{KernelBuildParams, KernelJobLine, KernelPullParams};

pub(crate) use hailer_marimo::{Progress, Report};

/// Builds the image `params` describe, or writes its context when `export_to` is set.
pub async fn build(params: KernelBuildParams, progress: Progress<'_>) -> KernelJobLine {
    match try_build(params, progress).await {
        Ok(done) => done,
        Err(failed) => failed,
    }
}

/// Downloads the image and checks its contract.
pub async fn pull(params: KernelPullParams, progress: Progress<'_>) -> KernelJobLine {
    let contract = hailer_kernel_bundle::contract();
    let image = params.image.trim();
    if image.is_empty() {
        return failed("name the image to download", None);
    }
    let engine = match Engine::connect().await {
        Ok(engine) => engine,
        Err(error) => return failed(&error.without_runtime_alternative(), None),
    };
    match hailer_docker::pull(&engine, image, &contract, progress).await {
        Ok(()) => KernelJobLine::Done {
            image: Some(image.to_owned()),
            contract,
            command: None,
            log: None,
        },
        Err(error) => failed(&error.to_string(), None),
    }
}

async fn try_build(
    params: KernelBuildParams,
    progress: Progress<'_>,
) -> Result<KernelJobLine, KernelJobLine> {
    let contract = hailer_kernel_bundle::contract();
    let tag = params.tag.trim().to_owned();
    if tag.is_empty() || tag.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(failed(
            "the image name must be one word, such as hailer-kernel:mine",
            None,
        ));
    }
    let path = |value: &Option<String>, what: &str| -> Result<Option<PathBuf>, KernelJobLine> {
        match value {
            None => Ok(None),
            Some(text) if Path::new(text).is_absolute() => Ok(Some(PathBuf::from(text))),
            Some(text) => Err(failed(
                &format!("{what} must be an absolute path, not {text}"),
                None,
            )),
        }
    };
    let mut options = BuildOptions::new(tag.clone());
    options.base_image = params
        .base_image
        .as_deref()
        .map(str::trim)
        .filter(|base| !base.is_empty())
        .map(str::to_owned);
    if let Some(base) = &options.base_image
        && !hailer_config::is_image_reference(base)
    {
        return Err(failed(
            "the base image must be one image name, such as python:3.13-slim",
            None,
        ));
    }
    options.pip_config = path(&params.pip_config, "the pip configuration file")?;
    options.pip_cert = path(&params.pip_cert, "the CA file")?;
    options.wheelhouse = path(&params.wheelhouse, "the wheelhouse")?;
    options.no_cache = params.no_cache;
    let export_to = path(&params.export_to, "the context folder")?;
    let host = package_settings(&params, &options, progress).await?;
    if let Some(host) = host {
        options.host_pip_config = host.pip_conf;
        if options.pip_cert.is_none() {
            options.pip_cert = host.ca_file;
        }
    }
    if let Some(dir) = export_to {
        return export(dir, options, contract, progress).await;
    }
    let engine = Engine::connect()
        .await
        .map_err(|error| failed(&error.without_runtime_alternative(), None))?;
    hailer_docker::build(&engine, &options, &contract, progress)
        .await
        .map_err(|error| failed(&error.to_string(), None))?;
    Ok(KernelJobLine::Done {
        image: Some(tag),
        contract,
        command: None,
        log: None,
    })
}

/// Says where the packages come from, and finds the host's settings when that is the way.
async fn package_settings(
    params: &KernelBuildParams,
    options: &BuildOptions,
    progress: Progress<'_>,
) -> Result<Option<HostSettings>, KernelJobLine> {
    if let Some(wheelhouse) = &options.wheelhouse {
        note(
            progress,
            &format!(
                "Installing the kernel's packages offline from the wheelhouse {}",
                wheelhouse.display()
            ),
        );
        return Ok(None);
    }
    if let Some(config) = &options.pip_config {
        note(
            progress,
            &format!("Using the pip configuration {}", config.display()),
        );
        return Ok(None);
    }
    if !params.host_config {
        note(
            progress,
            "Not looking for this machine's package index settings (--no-host-config)",
        );
        return Ok(None);
    }
    if !Path::new(&params.cwd).is_absolute() {
        return Err(failed(
            "cwd must be the client's absolute working folder",
            None,
        ));
    }
    let env: BTreeMap<String, String> = params
        .env
        .iter()
        .filter(|(name, _)| hailer_protocol::is_build_discovery_variable(name))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let cwd = PathBuf::from(&params.cwd);
    let found = tokio::task::spawn_blocking(move || {
        hailer_docker::discover_host_settings(&HostInputs {
            env: &env,
            cwd: &cwd,
            read: &hailer_docker::read_host_file,
        })
    })
    .await
    .map_err(|error| {
        failed(
            &format!("looking for package index settings failed: {error}"),
            None,
        )
    })?
    .map_err(|error| failed(&error.to_string(), None))?;
    match found.summary() {
        Some(summary) => note(progress, &summary),
        None => note(
            progress,
            "No pip or uv index settings on this machine: the packages come from PyPI",
        ),
    }
    for left_out in &found.left_out {
        note(progress, &format!("Left out: {left_out}"));
    }
    Ok(Some(found))
}

async fn export(
    dir: PathBuf,
    options: BuildOptions,
    contract: String,
    progress: Progress<'_>,
) -> Result<KernelJobLine, KernelJobLine> {
    let wrote_host_settings = options.pip_config.is_none() && options.host_pip_config.is_some();
    let written = {
        let dir = dir.clone();
        let contract = contract.clone();
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir).map_err(|error| {
                format!(
                    "cannot create the context folder {}: {error}",
                    dir.display()
                )
            })?;
            hailer_docker::export_context(&dir, &options, &contract).map_err(|e| e.to_string())
        })
        .await
        .map_err(|error| failed(&format!("writing the build context failed: {error}"), None))?
    };
    let command = written.map_err(|message| failed(&message, None))?;
    note(
        progress,
        &format!(
            "Wrote the build context for kernel contract {contract} to {}",
            dir.display()
        ),
    );
    if wrote_host_settings {
        note(
            progress,
            &format!(
                "This machine's package index settings are in {}, readable by you only; the build \
                 command hands them to BuildKit as a secret and .dockerignore keeps them out of the \
                 context. They may hold credentials, so keep that file out of version control",
                dir.join(hailer_docker::EXPORTED_SECRETS_FOLDER)
                    .join(hailer_docker::PIP_CONF_SECRET)
                    .display()
            ),
        );
    }
    Ok(KernelJobLine::Done {
        image: None,
        contract,
        command: Some(command),
        log: None,
    })
}

fn failed(message: &str, hint: Option<String>) -> KernelJobLine {
    KernelJobLine::failed(message, hint)
}

fn note(progress: Progress<'_>, line: &str) {
    progress(Report::Note(line));
}
