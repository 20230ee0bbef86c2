//! The unsafe-local runtime: marimo in a managed Python environment, as the user; and the
//! sandbox runtime, the same launch inside the system's sandbox (`super::sandbox`).

use std::path::{Path, PathBuf};

use hailer_marimo::{LaunchOptions, ManagedVenv, MarimoClient, MarimoServer, VenvRequest};

use super::{KernelError, KernelSpec};
use hailer_kernel_bundle as bundle;

/// The variable the kernel package reads the data folder from (`hailer_kernel.workspace`).
pub(super) const DATA_DIR_VARIABLE: &str = "HAILER_DATA_DIR";

/// A marimo server started for one session, with its client.
#[derive(Debug)]
pub(super) struct LocalServer {
    server: MarimoServer,
    pub client: MarimoClient,
    /// The record that lets the next daemon end this server if this one dies.
    record: Option<PathBuf>,
    /// The interpreter marimo runs on (its folder holds the environment's programs).
    pub python: PathBuf,
    /// The kernel's environment (secrets withheld) and working folder, for a fresh process
    /// started like it (`hailer doctor --probe`).
    pub env: std::collections::BTreeMap<String, String>,
    pub workspace: PathBuf,
    /// The sandbox launcher the kernel runs under (`runtime = "sandbox"`); a fresh process
    /// started like the kernel goes through it too.
    pub wrapper: Option<hailer_marimo::Wrapper>,
}

impl LocalServer {
    pub(super) fn base_url(&self) -> &str {
        self.server.base_url()
    }

    pub(super) fn token(&self) -> &secrecy::SecretString {
        self.server.token()
    }

    /// How the server process ended; `None` while it runs.
    pub(super) fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.server.exit_status()
    }

    /// The server's log file (its output), which holds the token unmasked.
    pub(super) fn log_path(&self) -> &Path {
        self.server.log_path()
    }

    pub(super) async fn stop(self) {
        self.server.stop().await;
        if let Some(record) = &self.record {
            super::local_leftovers::forget(record);
        }
    }
}

/// Prepares the environment, then starts marimo on the session's notebooks folder.
pub(super) async fn start(
    spec: &KernelSpec,
    progress: hailer_marimo::Progress<'_>,
) -> Result<LocalServer, KernelError> {
    let python = venv_python(spec, progress).await?;
    let sandboxed = spec.runtime == hailer_config::Runtime::Sandbox;
    let temporary = if sandboxed {
        Some(super::sandbox::temporary_folder()?)
    } else {
        None
    };
    let wrapper = match &temporary {
        Some(temporary) => {
            super::sandbox::mark_notebooks_written(&spec.workspace);
            Some(super::sandbox::wrapper(spec, &python, temporary)?)
        }
        None => None,
    };
    let withheld: Vec<&str> = spec.withheld_names.iter().map(String::as_str).collect();
    let mut env = hailer_marimo::scrub_environment(spec.base_env.clone(), &withheld);
    if let Some(temporary) = &temporary {
        env.vars = super::sandbox::environment(std::mem::take(&mut env.vars), temporary);
    }
    // The starter notebook's DATA_DIR and data_files: the data folder hailer.toml names, the
    // one the agent is told about, and never one the daemon's own environment happened to set.
    env.vars.insert(
        DATA_DIR_VARIABLE.to_owned(),
        spec.workspace_data.display().to_string(),
    );
    tracing::info!(
        withheld = env.withheld_count(),
        runtime = %spec.runtime,
        "starting a local kernel"
    );
    progress(hailer_marimo::Report::Note(if sandboxed {
        "Starting marimo in the sandbox"
    } else {
        "Starting marimo"
    }));
    let vars = env.vars.clone();
    let mut options = LaunchOptions::new(
        python.clone(),
        spec.workspace.clone(),
        spec.notebooks_dir.clone(),
        env,
    );
    options.wrapper = wrapper.clone();
    let server = hailer_marimo::launch(&options).await?;
    let client = server.client()?;
    let record = super::local_leftovers::remember(&spec.data_dir, server.pid());
    Ok(LocalServer {
        server,
        client,
        record,
        python,
        env: vars,
        workspace: spec.workspace.clone(),
        wrapper,
    })
}

/// The interpreter of the environment the kernel runs in.
async fn venv_python(
    spec: &KernelSpec,
    progress: hailer_marimo::Progress<'_>,
) -> Result<PathBuf, KernelError> {
    if let Some(trusted) = &spec.python_trust
        && !trusted.program_unchanged(&spec.workspace)
    {
        return Err(KernelError::Invalid(
            "the Python [kernel] python names changed (its content or where its links lead) \
             since the session read hailer.toml, so it was not run; start again and review it \
             with `hailer trust`"
                .to_owned(),
        ));
    }
    let venv = managed_venv(
        spec.python.as_deref(),
        spec.base_env.get("PATH").map(String::as_str),
        spec.wheelhouse.as_deref(),
        &spec.kernel_envs,
        progress,
    )
    .await?;
    Ok(venv.python)
}

/// Creates (or reuses) the managed environment of this kernel contract under `kernel_envs`: the
/// kernel's packages and the cell checkers (ty; ruff is a kernel package), made from `python`
/// when named, else from the best Python on `search_path`. A ready environment is reused
/// without running any interpreter.
pub async fn managed_venv(
    python: Option<&Path>,
    search_path: Option<&str>,
    wheelhouse: Option<&Path>,
    kernel_envs: &Path,
    progress: hailer_marimo::Progress<'_>,
) -> Result<ManagedVenv, KernelError> {
    let search_path = search_path.map(std::ffi::OsStr::new);
    let base = match python {
        Some(path) => hailer_marimo::BasePython::Named(path),
        None => hailer_marimo::BasePython::Search(search_path),
    };
    let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
    let pip = hailer_docker::pip_install_settings(&hailer_docker::HostInputs {
        env: &env,
        cwd: &cwd,
        read: &hailer_docker::read_host_file,
    })
    .map_err(|error| error.to_string());
    let installer =
        hailer_marimo::choose_installer(search_path, &pip, wheelhouse.is_some(), &|path: &Path| {
            path.is_file()
        });
    let requirements = format!("{}{}", bundle::REQUIREMENTS, bundle::LOCAL_REQUIREMENTS);
    let root = kernel_envs.join(bundle::contract());
    let package = root.join("package");
    bundle::write_package(&package).map_err(|source| {
        KernelError::Marimo(hailer_marimo::Error::Io {
            context: format!("cannot write the kernel package to {}", package.display()),
            source,
        })
    })?;
    let venv = hailer_marimo::ensure_venv(
        base,
        &VenvRequest {
            dir: &root.join("venv"),
            requirements: &requirements,
            local_packages: &[package],
            wheelhouse,
            installer: &installer,
        },
        progress,
    )
    .await?;
    Ok(venv)
}
