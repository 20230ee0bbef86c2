//! A session's kernel: one marimo server, started for the session and stopped with it.
//!
//! Only the unsafe-local runtime (a child process running as the user) exists in this module so
//! far; the docker runtime fails closed with a message saying so, never falling back to running
//! code on this machine.

mod local;

pub use local::managed_venv;
mod value;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hailer_config::Runtime;
use hailer_marimo::MarimoClient;
use hailer_protocol::ExecResponse;
use secrecy::{ExposeSecret, SecretString};

/// Everything needed to start a kernel for one session.
#[derive(Debug, Clone)]
pub struct KernelSpec {
    pub runtime: Runtime,
    pub workspace: PathBuf,
    pub notebooks_dir: PathBuf,
    /// The Python to build the managed environment from (`[kernel].python`).
    pub python: Option<PathBuf>,
    /// An existing environment that already has the kernel's packages (`HAILER_KERNEL_VENV`).
    pub prepared_venv: Option<PathBuf>,
    /// Install the managed environment offline from this folder of wheels (`HAILER_WHEELHOUSE`).
    pub wheelhouse: Option<PathBuf>,
    /// Hailer's data folder, where managed environments live.
    pub data_dir: PathBuf,
    /// The environment the kernel starts from, before secrets are withheld.
    pub base_env: BTreeMap<String, String>,
    /// Variable names to withhold besides the secret-looking ones (provider keys, header vars).
    pub withheld_names: Vec<String>,
}

/// Why a kernel could not start or run code.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error(
        "the docker kernel runtime is not available in this build, and Hailer never falls back \
         to running notebook code on this machine by itself"
    )]
    DockerNotAvailable,
    #[error("{0}")]
    Marimo(#[from] hailer_marimo::Error),
}

impl KernelError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::DockerNotAvailable => Some(
                "If you accept that notebook code then runs as you, with your files and \
                 network, set runtime = \"unsafe-local\" under [kernel] in hailer.toml (or pass \
                 --kernel unsafe-local)."
                    .to_owned(),
            ),
            Self::Marimo(_) => None,
        }
    }
}

/// How long one run of code may take unless the caller says otherwise.
pub const DEFAULT_EXEC_TIMEOUT: Duration = Duration::from_secs(300);

/// A running kernel.
#[derive(Debug)]
pub struct Kernel {
    client: MarimoClient,
    base_url: String,
    token: SecretString,
    notebooks_dir: PathBuf,
    server: tokio::sync::Mutex<Option<local::LocalServer>>,
}

impl Kernel {
    /// Starts the kernel `spec` describes, reporting progress lines (environment set-up can take
    /// a while the first time).
    pub async fn start(
        spec: &KernelSpec,
        progress: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Self, KernelError> {
        match spec.runtime {
            Runtime::Docker => Err(KernelError::DockerNotAvailable),
            Runtime::UnsafeLocal => {
                let server = local::start(spec, progress).await?;
                Ok(Self {
                    client: server.client.clone(),
                    base_url: server.base_url().to_owned(),
                    token: server.token().clone(),
                    notebooks_dir: spec.notebooks_dir.clone(),
                    server: tokio::sync::Mutex::new(Some(server)),
                })
            }
        }
    }

    /// Runs `code` in `notebook`'s kernel session, opening it (and running its cells) first if
    /// needed.
    pub async fn exec(
        &self,
        notebook: &Path,
        code: &str,
        timeout: Duration,
    ) -> Result<ExecResponse, KernelError> {
        let outcome = self.client.execute(notebook, code, timeout).await?;
        Ok(ExecResponse {
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            success: outcome.success,
            value: outcome
                .output
                .filter(|output| !output.data.is_empty())
                .map(|output| value::readable(&output.mimetype, &output.data)),
            fresh_kernel: outcome.fresh_session,
            notebook: self.relative_name(notebook),
        })
    }

    /// Opens `notebook`'s kernel session (its cells run) without running anything else.
    pub async fn open(&self, notebook: &Path) -> Result<(), KernelError> {
        self.client.ensure_session(notebook).await?;
        Ok(())
    }

    /// Interrupts whatever runs in `notebook`'s kernel; best effort.
    pub async fn interrupt(&self, notebook: &Path) {
        if let Err(error) = self.client.interrupt(notebook).await {
            tracing::debug!(%error, "interrupt failed");
        }
    }

    /// Closes `notebook`'s kernel session if one is open.
    pub async fn close(&self, notebook: &Path) -> Result<bool, KernelError> {
        match self.client.resolve_session(notebook).await? {
            Some(session) => {
                self.client.shutdown_session(&session).await?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The notebooks that have a kernel session, by path.
    pub async fn open_notebooks(&self) -> Vec<PathBuf> {
        self.client
            .list_sessions()
            .await
            .map(|sessions| sessions.into_iter().map(|(_, path)| path).collect())
            .unwrap_or_default()
    }

    /// A link a person can open to watch and edit `notebook` in marimo. It carries the kernel's
    /// token: never hand it to the model.
    pub fn signed_link(&self, notebook_name: &str) -> String {
        format!(
            "{}/?file={}&access_token={}",
            self.base_url,
            encode_query(notebook_name),
            self.token.expose_secret()
        )
    }

    /// Stops the kernel and everything it started. Safe to call twice.
    pub async fn stop(&self) {
        if let Some(server) = self.server.lock().await.take() {
            server.stop().await;
        }
    }

    fn relative_name(&self, notebook: &Path) -> String {
        notebook
            .strip_prefix(&self.notebooks_dir)
            .unwrap_or(notebook)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

fn encode_query(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}
