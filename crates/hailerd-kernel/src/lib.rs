//! A session's kernel: one marimo server, started for the session and stopped with it.
//!
//! Three runtimes: docker (the default: an isolated container that works on copies of the
//! notebooks), unsafe-local (a child process running as the user) and sandbox (unsafe-local's
//! environment, started in the system's sandbox with the notebooks folder writable in place). Without a usable Docker a
//! docker start fails; it never falls back to running code on this machine.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod audit;
mod clock;
mod owner_lock;

pub use audit::{Audit, RunFailure};
pub use clock::unix_now;
pub use docker_leftovers::reap as reap_docker_leftovers;
pub use image_jobs::{build as build_image, pull as pull_image};
pub use job_log::{JobLog, JobSteps, set_log_dir};
pub use local_leftovers::reap as reap_local_leftovers;
pub use owner_lock::OwnerLock;
pub use sandbox::isolation as sandbox_isolation;

mod docker;
mod docker_leftovers;
mod image_jobs;
mod job_log;
mod local;
#[cfg(unix)]
mod local_leftovers;
#[cfg(windows)]
#[path = "local_leftovers_windows.rs"]
mod local_leftovers;
mod probe;
mod sandbox;

pub use local::managed_venv;
mod value_as_text;
mod watch;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hailer_config::Runtime;
use hailer_marimo::{CellSnapshot, KernelState, MarimoClient, SnapshotOptions};
use hailer_protocol::ExecResponse;
use secrecy::{ExposeSecret, SecretString};

/// The variable of a client's environment that names a folder of wheels: a managed environment
/// a session start has to make is then installed from it, with no package index (for machines
/// that reach none). `hailer kernel install-local --wheelhouse` is the same for one install.
pub const OFFLINE_WHEELS_VAR: &str = "HAILER_WHEELHOUSE";

/// Everything needed to start a kernel for one session.
#[derive(Debug, Clone)]
pub struct KernelSpec {
    /// Which runtime runs the kernel.
    pub runtime: Runtime,
    /// The workspace the session belongs to.
    pub workspace: PathBuf,
    /// The workspace's notebooks folder.
    pub notebooks_dir: PathBuf,
    /// The Python to build the managed environment from (`[kernel].python`).
    pub python: Option<PathBuf>,
    /// Install the managed environment offline from this folder of wheels
    /// ([`OFFLINE_WHEELS_VAR`] in the client's environment).
    pub wheelhouse: Option<PathBuf>,
    /// Hailer's data folder (records of the unsafe-local kernels started).
    pub data_dir: PathBuf,
    /// Where the managed environments live, one folder per kernel contract.
    pub kernel_envs: PathBuf,
    /// The workspace's data folder (`[hailer] data_dir`): the unsafe-local kernel's `DATA_DIR`
    /// (through `HAILER_DATA_DIR`), the folder a docker kernel mounts read-only.
    pub workspace_data: PathBuf,
    /// The memory limit (`[kernel] memory`): the docker container's, each sandboxed process's.
    pub memory: hailer_config::MemoryLimit,
    /// Settings of the docker runtime; `None` for unsafe-local.
    pub docker: Option<DockerSettings>,
    /// The environment the kernel starts from, before secrets are withheld.
    pub base_env: BTreeMap<String, String>,
    /// Variable names to withhold besides the secret-looking ones (provider keys, header vars).
    pub withheld_names: Vec<String>,
    /// The trust decision about `[kernel] python` (what the program was when the configuration
    /// was read), when the file set it: checked again right before it runs.
    pub python_trust: Option<hailer_config::GatedSetting>,
    /// The session's audit trail (a docker kernel records its notebook copies there).
    pub audit: crate::audit::Audit,
}

/// What the docker runtime needs besides the common settings.
#[derive(Debug, Clone)]
pub struct DockerSettings {
    /// The image to run; `None` for the default kernel image of this version.
    pub image: Option<String>,
    /// The container's memory limit.
    pub memory: hailer_config::MemoryLimit,
    /// The container's CPU limit, in CPUs.
    pub cpus: f64,
    /// Whether the user agreed to give the container a network.
    pub network: bool,
    /// The workspace's data folder, mounted read-only.
    pub data_dir: PathBuf,
    /// The session's owner lock id, for the containers' labels.
    pub owner_id: String,
}

/// Why a kernel could not start or run code.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("{0}")]
    /// Docker refused or failed.
    Docker(#[from] hailer_docker::Error),
    #[error("{0}")]
    /// marimo refused or failed.
    Marimo(#[from] hailer_marimo::Error),
    #[error("{0}")]
    /// The request cannot be done as asked.
    Invalid(String),
    #[error(
        "the kernel ran out of memory (its limit is {memory}) and {}",
        if *container_stopped {
            "its container stopped; start a new session"
        } else {
            "was restarted on a fresh session: variables from earlier runs are gone"
        }
    )]
    /// The kernel ran past its memory limit.
    OutOfMemory {
        /// The limit, as the user wrote it.
        memory: String,
        /// Whether the container stopped (docker), rather than the kernel being restarted.
        container_stopped: bool,
    },
    /// The record of the run could not be written, so the code was not run.
    #[error("the code was not run: the audit trail cannot be written: {0}")]
    AuditUnwritable(String),
}

impl crate::audit::RunFailure for KernelError {
    fn outcome(&self) -> hailer_protocol::AuditOutcome {
        match self {
            Self::OutOfMemory { .. } => hailer_protocol::AuditOutcome::OutOfMemory,
            _ => hailer_protocol::AuditOutcome::Error,
        }
    }
}

impl KernelError {
    /// What the user can do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::OutOfMemory { .. } => Some(
                "Work with less data at a time (read only the columns and rows needed, use lazy \
                 frames or DuckDB), or raise memory under [kernel] in hailer.toml and start a \
                 new session."
                    .to_owned(),
            ),
            Self::AuditUnwritable(_) => Some(
                "Every run is recorded in .hailer/audit.jsonl before it runs: make it a regular \
                 file you can write, then run again. `hailer audit verify` says what the trail \
                 lost."
                    .to_owned(),
            ),
            Self::Marimo(hailer_marimo::Error::KernelRestarted {
                timed_out: true, ..
            }) => Some(
                "Give runs longer with exec_timeout_secs under [kernel] in hailer.toml, or \
                 --exec-timeout SECS for one session (`hailer exec --timeout SECS` for one \
                 run); or read less: pl.scan_csv / pl.scan_parquet with filters and .collect() \
                 at the end, or DuckDB on the file, read only what the answer needs."
                    .to_owned(),
            ),
            Self::Docker(_) | Self::Marimo(_) | Self::Invalid(_) => None,
        }
    }
}

/// A running kernel.
#[derive(Debug)]
pub struct Kernel {
    client: MarimoClient,
    base_url: String,
    token: SecretString,
    notebooks_dir: PathBuf,
    /// Where the kernel sees `notebooks_dir`.
    kernel_notebooks_dir: PathBuf,
    /// The unsafe-local kernel's interpreter; `None` for docker.
    local_python: Option<PathBuf>,
    /// The docker kernel's memory limit, for messages; empty for unsafe-local.
    memory: String,
    /// The docker kernel's image digest, for the audit trail.
    image_digest: Option<String>,
    server: tokio::sync::Mutex<Option<Server>>,
    /// When it became ready.
    pub started_at: std::time::Instant,
}

/// How long reading the cells may take.
const SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long drawing a call's charts may take (the first drawing in a kernel starts the renderer).
const DRAW_CHARTS_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug)]
enum Server {
    Local(local::LocalServer),
    Docker(docker::DockerServer),
}

impl Kernel {
    /// Starts the kernel `spec` describes, reporting progress lines (environment set-up can take
    /// a while the first time).
    pub async fn start(
        spec: &KernelSpec,
        progress: hailer_marimo::Progress<'_>,
    ) -> Result<Self, KernelError> {
        match spec.runtime {
            Runtime::Docker => {
                // Boxed with an explicit `Send`: the copy futures' lifetimes are otherwise too
                // general for the compiler to prove the task sendable.
                let starting: std::pin::Pin<
                    Box<
                        dyn std::future::Future<Output = Result<docker::DockerServer, KernelError>>
                            + Send
                            + '_,
                    >,
                > = Box::pin(docker::start(spec, progress));
                let server = starting.await?;
                Ok(Self {
                    client: server.client.clone(),
                    base_url: server.base_url().to_owned(),
                    token: server.token().clone(),
                    notebooks_dir: spec.notebooks_dir.clone(),
                    kernel_notebooks_dir: PathBuf::from(docker::KERNEL_NOTEBOOKS),
                    local_python: None,
                    memory: server.memory.clone(),
                    image_digest: server.image_digest.clone(),
                    server: tokio::sync::Mutex::new(Some(Server::Docker(server))),
                    started_at: std::time::Instant::now(),
                })
            }
            Runtime::UnsafeLocal | Runtime::Sandbox => {
                let server = local::start(spec, progress).await?;
                Ok(Self {
                    client: server.client.clone(),
                    base_url: server.base_url().to_owned(),
                    token: server.token().clone(),
                    notebooks_dir: spec.notebooks_dir.clone(),
                    kernel_notebooks_dir: spec.notebooks_dir.clone(),
                    local_python: Some(server.python.clone()),
                    memory: String::new(),
                    image_digest: None,
                    server: tokio::sync::Mutex::new(Some(Server::Local(server))),
                    started_at: std::time::Instant::now(),
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
        let started = std::time::SystemTime::now();
        let outcome = match self
            .client
            .execute(&self.kernel_path(notebook), code, timeout)
            .await
        {
            Ok(outcome) => outcome,
            Err(error) => return Err(self.explain_failure(error.into(), started).await),
        };
        Ok(ExecResponse {
            stdout: outcome.stdout,
            stderr: outcome.stderr,
            success: outcome.success,
            value: outcome
                .output
                .filter(|output| !output.data.is_empty())
                .map(|output| value_as_text::readable(&output.mimetype, &output.data)),
            fresh_kernel: outcome.fresh_session,
            notebook: self.relative_name(notebook),
        })
    }

    /// A failed run of a docker kernel that the memory limit ended says so.
    async fn explain_failure(
        &self,
        error: KernelError,
        started: std::time::SystemTime,
    ) -> KernelError {
        let server = self.server.lock().await;
        let Some(Server::Docker(docker)) = server.as_ref() else {
            return error;
        };
        match docker.memory_check(started).await {
            Some(check) if check.out_of_memory => {
                tracing::warn!(%error, "the docker kernel ran out of memory");
                KernelError::OutOfMemory {
                    memory: docker.memory.clone(),
                    container_stopped: !check.running,
                }
            }
            _ => error,
        }
    }

    /// The cells of `notebook` from its document, without marking them as read (the session is
    /// opened first if needed).
    pub async fn snapshot_cells(
        &self,
        notebook: &Path,
        options: SnapshotOptions,
    ) -> Result<Vec<CellSnapshot>, KernelError> {
        Ok(self
            .client
            .snapshot_cells(&self.kernel_path(notebook), options, SNAPSHOT_TIMEOUT)
            .await?)
    }

    /// The charts of the cells `cell_ids` of `notebook`, drawn in the kernel as `format`.
    pub async fn draw_charts(
        &self,
        notebook: &Path,
        cell_ids: &[String],
        format: hailer_marimo::PictureFormat,
    ) -> Result<Vec<hailer_marimo::DrawnChart>, KernelError> {
        Ok(self
            .client
            .draw_charts(
                &self.kernel_path(notebook),
                cell_ids,
                format,
                DRAW_CHARTS_TIMEOUT,
            )
            .await?)
    }

    /// The state of the kernel serving `notebook`; `None` when it has no session.
    pub async fn notebook_state(
        &self,
        notebook: &Path,
    ) -> Result<Option<KernelState>, KernelError> {
        let path = self.kernel_path(notebook);
        match self.client.resolve_session(&path).await? {
            Some(session) => Ok(Some(self.client.kernel_status_of(&session).await?)),
            None => Ok(None),
        }
    }

    /// The docker kernel's image digest (`repository@sha256:...`, or the image's id).
    pub fn image_digest(&self) -> Option<&str> {
        self.image_digest.as_deref()
    }

    /// The token marimo wants: for masking, and for links people open.
    pub fn token(&self) -> &SecretString {
        &self.token
    }

    /// The unsafe-local kernel's Python interpreter; `None` for a docker kernel.
    pub fn local_python(&self) -> Option<&Path> {
        self.local_python.as_deref()
    }

    /// Opens `notebook`'s kernel session (its cells run) without running anything else.
    pub async fn open(&self, notebook: &Path) -> Result<(), KernelError> {
        self.client
            .ensure_session(&self.kernel_path(notebook))
            .await?;
        Ok(())
    }

    /// Closes `notebook`'s kernel session if one is open.
    pub async fn close(&self, notebook: &Path) -> Result<bool, KernelError> {
        match self
            .client
            .resolve_session(&self.kernel_path(notebook))
            .await?
        {
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
            .map(|sessions| {
                sessions
                    .into_iter()
                    .map(
                        |(_, path)| match path.strip_prefix(&self.kernel_notebooks_dir) {
                            Ok(relative) => self.notebooks_dir.join(relative),
                            Err(_) => path,
                        },
                    )
                    .collect()
            })
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

    /// Copies changed notebooks back from a docker kernel (nothing to do for unsafe-local);
    /// a line for the user when something needs saying.
    pub async fn copy_back(&self) -> Option<String> {
        match self.server.lock().await.as_ref() {
            Some(Server::Docker(server)) => server.copy_back(false).await,
            _ => None,
        }
    }

    /// Copies the host's notebooks into a docker kernel again (nothing to do for unsafe-local).
    pub async fn copy_in(&self) -> Option<String> {
        match self.server.lock().await.as_ref() {
            Some(Server::Docker(server)) => server.copy_in().await,
            _ => None,
        }
    }

    /// How the kernel ended, when it ended by itself or from outside; `None` while it runs and
    /// after [`Kernel::stop`]. An engine that cannot be asked right now also answers `None`.
    pub async fn ended(&self) -> Option<hailer_protocol::KernelExit> {
        match self.server.lock().await.as_mut() {
            Some(Server::Local(server)) => server.exit_status().map(watch::local_exit),
            Some(Server::Docker(server)) => match server.ended().await {
                Ok(ended) => ended.map(|ended| watch::docker_exit(&ended, &self.memory)),
                Err(error) => {
                    tracing::debug!(%error, "could not check the docker kernel");
                    None
                }
            },
            None => None,
        }
    }

    /// The kernel's log from its last `tail` lines on, line by line with the token masked, as
    /// it is written; `None` once the kernel was stopped.
    pub async fn follow_log(&self, tail: usize) -> Option<tokio::sync::mpsc::Receiver<String>> {
        match self.server.lock().await.as_ref() {
            Some(Server::Local(server)) => Some(watch::follow_file(
                server.log_path().to_path_buf(),
                self.token.clone(),
                tail,
            )),
            Some(Server::Docker(server)) => Some(watch::follow_stream(
                server.follow_log(tail),
                self.token.clone(),
            )),
            None => None,
        }
    }

    /// Stops the kernel and everything it started (a docker kernel copies its notebooks back
    /// first). Safe to call twice.
    pub async fn stop(&self) {
        match self.server.lock().await.take() {
            Some(Server::Local(server)) => server.stop().await,
            Some(Server::Docker(server)) => server.stop().await,
            None => {}
        }
    }

    fn kernel_path(&self, notebook: &Path) -> PathBuf {
        docker::kernel_path_in(&self.notebooks_dir, &self.kernel_notebooks_dir, notebook)
    }

    /// `notebook`'s name in the notebooks folder (`analysis.py`, `sub/one.py`).
    pub fn relative_name(&self, notebook: &Path) -> String {
        notebook
            .strip_prefix(&self.notebooks_dir)
            .unwrap_or(notebook)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// What a notebook's name keeps unencoded in the link's query: letters, digits, `-_.~` and the
/// `/` between folders; every other byte is `%XX`.
const QUERY_KEEPS: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b'/');

fn encode_query(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, QUERY_KEEPS).to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn notebook_names_are_encoded_as_before_and_decode_back() {
        let cases = [
            ("analysis.py", "analysis.py"),
            ("sub/one.py", "sub/one.py"),
            ("a b&c=d?.py", "a%20b%26c%3Dd%3F.py"),
            ("~tilde_-.py", "~tilde_-.py"),
            ("100%.py", "100%25.py"),
            ("caf\u{e9}.py", "caf%C3%A9.py"),
            ("#hash+plus.py", "%23hash%2Bplus.py"),
            ("", ""),
        ];
        for (name, encoded) in cases {
            assert_eq!(encode_query(name), encoded, "{name}");
            assert_eq!(
                percent_encoding::percent_decode_str(encoded)
                    .decode_utf8()
                    .unwrap(),
                name
            );
        }
    }
}
