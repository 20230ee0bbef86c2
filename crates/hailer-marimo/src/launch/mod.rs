//! Starting an unsafe-local marimo server: our token on its stdin, our scrubbed environment, its
//! own process group, its log in `.hailer/`, and a readiness check that only accepts the server
//! this start created.

mod log_file;
mod port;
#[cfg(unix)]
pub(crate) mod process_tree;
pub(crate) mod readiness;
mod server_tree;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use tokio::io::AsyncWriteExt as _;
use tokio::process::{Child, Command};

pub use port::free_port;
pub(crate) use port::{DEFAULT_PORT, choose_port};

use crate::access_token::generate_token;
use crate::client::{ClientOptions, MarimoClient};
use crate::env_scrub::ScrubbedEnv;
use crate::error::{Error, Result};
use readiness::{Probe, probe, probe_client};
use server_tree::ServerTree;

/// The program `python -c` runs to start `marimo edit` (the arguments after it are marimo's):
/// marimo's own command line, with kernels that start sooner (see the file): no main module to
/// import again in a kernel, and on Linux kernels forked from a server that imported marimo's
/// runtime beside the web server's start.
pub const MARIMO_EDIT_PROGRAM: &str = include_str!("start_marimo.py");

/// How often readiness is probed.
const PROBE_INTERVAL: Duration = Duration::from_millis(20);
/// How long `stop` waits after SIGTERM before SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);
/// How many starts are tried when another program takes the port first.
const PORT_ATTEMPTS: usize = 3;

/// What to start.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// A Python whose environment has marimo 0.24.2.
    pub python: PathBuf,
    /// The workspace: the server's working directory, and where `.hailer/` lives.
    pub workspace: PathBuf,
    /// The notebooks folder (absolute, or relative to the workspace).
    pub notebooks_dir: PathBuf,
    /// The server's whole environment, secrets already withheld.
    pub env: ScrubbedEnv,
    /// The port to try first (0: let the system pick).
    pub preferred_port: u16,
    /// How long the server may take to become ready.
    pub ready_timeout: Duration,
    /// A program that runs marimo for us (a sandbox): `None` runs Python directly.
    pub wrapper: Option<Wrapper>,
}

/// A program that starts marimo's command line inside it: `program args... python -m marimo
/// ...`. Each `{port}` in `args` becomes the port marimo is told to listen on.
#[derive(Debug, Clone)]
pub struct Wrapper {
    /// The program.
    pub program: PathBuf,
    /// Its arguments before marimo's command line.
    pub args: Vec<String>,
}

/// The placeholder of [`Wrapper::args`] that becomes the port.
pub const PORT_PLACEHOLDER: &str = "{port}";

impl LaunchOptions {
    /// Options with marimo's usual port and a 60 s readiness limit.
    pub fn new(
        python: PathBuf,
        workspace: PathBuf,
        notebooks_dir: PathBuf,
        env: ScrubbedEnv,
    ) -> Self {
        Self {
            python,
            workspace,
            notebooks_dir,
            env,
            preferred_port: DEFAULT_PORT,
            ready_timeout: Duration::from_secs(60),
            wrapper: None,
        }
    }
}

/// A running marimo server this process started. Dropping it ends the server and its kernels.
#[derive(Debug)]
pub struct MarimoServer {
    child: Option<Child>,
    tree: ServerTree,
    port: u16,
    base_url: String,
    token: SecretString,
    log_path: PathBuf,
    notebooks_dir: PathBuf,
    port_note: Option<String>,
}

/// Starts marimo and waits until it is ready and proven to be ours.
pub async fn launch(options: &LaunchOptions) -> Result<MarimoServer> {
    let (mut port, mut port_note) = choose_port(options.preferred_port)?;
    let mut attempt = 1;
    loop {
        let mut server = spawn_server(options, port, port_note.clone())?;
        match server.wait_ready(options.ready_timeout).await {
            Ok(()) => return Ok(server),
            Err(Error::ServerExited { status, log_tail })
                if attempt < PORT_ATTEMPTS
                    && log_tail
                        .to_ascii_lowercase()
                        .contains("address already in use") =>
            {
                tracing::info!(port, %status, "marimo lost its port to another program; trying another");
                server.stop().await;
                attempt += 1;
                port = free_port()?;
                port_note = Some(format!(
                    "Port {} was taken; using {port}.",
                    options.preferred_port
                ));
            }
            Err(error) => {
                server.stop().await;
                return Err(error);
            }
        }
    }
}

fn spawn_server(
    options: &LaunchOptions,
    port: u16,
    port_note: Option<String>,
) -> Result<MarimoServer> {
    let workspace = &options.workspace;
    let (log_path, log) = log_file::create_log(workspace)?;
    let log_for_stderr = log.try_clone().map_err(|e| {
        Error::io(
            "could not share the marimo log between stdout and stderr",
            e,
        )
    })?;
    let mut command = match &options.wrapper {
        Some(wrapper) => {
            let mut command = Command::new(&wrapper.program);
            command
                .args(
                    wrapper
                        .args
                        .iter()
                        .map(|arg| arg.replace(PORT_PLACEHOLDER, &port.to_string())),
                )
                .arg(&options.python);
            command
        }
        None => Command::new(&options.python),
    };
    command
        .args(["-c", MARIMO_EDIT_PROGRAM, "edit"])
        .arg(notebooks_argument(workspace, &options.notebooks_dir))
        .args(["--token-password-file", "-", "--headless", "--port"])
        .arg(port.to_string())
        .arg("--skip-update-check")
        .current_dir(workspace)
        .env_clear()
        .envs(&options.env.vars)
        .stdin(Stdio::piped())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_for_stderr));
    server_tree::prepare(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            log_file::remove_log(&log_path);
            return Err(Error::io(
                format!("could not start marimo with {}", options.python.display()),
                e,
            ));
        }
    };
    let tree = ServerTree::track(&child);
    let token = generate_token();
    let stdin = child.stdin.take();
    let notebooks_dir = if options.notebooks_dir.is_absolute() {
        options.notebooks_dir.clone()
    } else {
        workspace.join(&options.notebooks_dir)
    };
    let server = MarimoServer {
        child: Some(child),
        tree,
        port,
        base_url: format!("http://127.0.0.1:{port}"),
        token,
        log_path,
        notebooks_dir,
        port_note,
    };
    // The token goes in through stdin, which is then closed; never on a command line.
    if let Some(mut stdin) = stdin {
        let token = server.token.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(token.expose_secret().as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    Ok(server)
}

/// The notebooks folder as marimo gets it: relative to the workspace with `/`, or absolute when
/// it lies outside.
fn notebooks_argument(workspace: &Path, notebooks_dir: &Path) -> String {
    let relative = if notebooks_dir.is_absolute() {
        notebooks_dir.strip_prefix(workspace).ok()
    } else {
        Some(notebooks_dir)
    };
    match relative {
        Some(relative) if !relative.as_os_str().is_empty() => relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Some(_) => ".".to_owned(),
        None => notebooks_dir.display().to_string(),
    }
}

impl MarimoServer {
    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The port on 127.0.0.1 the server listens on; not the preferred one when that was busy.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Set when the preferred port was busy ("Port 2718 is busy; using 40123.").
    pub fn port_note(&self) -> Option<&str> {
        self.port_note.as_deref()
    }

    /// The server's access token (memory only).
    pub fn token(&self) -> &SecretString {
        &self.token
    }

    /// The server process's id (also its process group on Unix).
    pub fn pid(&self) -> i32 {
        self.tree.pid()
    }

    /// The absolute notebooks folder the server serves.
    pub fn notebooks_dir(&self) -> &Path {
        &self.notebooks_dir
    }

    /// The server's log, `<workspace>/.hailer/marimo-<pid>.log` (this process's pid), readable
    /// by the user only. It holds the token unmasked (marimo prints it) and is deleted when the
    /// server is stopped or dropped.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// The end of the server's log, with the token masked.
    pub fn log_tail(&self) -> String {
        log_file::masked_tail(&self.log_path, &self.token)
    }

    /// A client for this server.
    pub fn client(&self) -> Result<MarimoClient> {
        MarimoClient::new(&self.base_url, self.token.clone())
    }

    /// A client for this server with explicit limits.
    pub fn client_with(&self, options: ClientOptions) -> Result<MarimoClient> {
        MarimoClient::with_options(&self.base_url, self.token.clone(), options)
    }

    /// The kernel processes (one per session; each leads its own session). Unix only.
    pub fn kernel_pids(&self) -> Vec<i32> {
        self.tree.kernel_pids()
    }

    /// How the server process ended; `None` while it runs (or after `stop`).
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .as_mut()
            .and_then(|child| child.try_wait().ok().flatten())
    }

    /// Whether the server process still runs.
    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|child| matches!(child.try_wait(), Ok(None)))
    }

    async fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let client = probe_client().ok_or_else(|| Error::Transport {
            what: "checking that marimo is up".to_owned(),
            reason: "the HTTP client could not be set up".to_owned(),
        })?;
        let deadline = tokio::time::Instant::now() + timeout;
        let mut foreign_seen = false;
        loop {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Err(Error::ServerExited {
                    status: hailer_platform::describe_exit(&status),
                    log_tail: self.log_tail(),
                });
            }
            match probe(&client, &self.base_url, &self.token).await {
                Probe::Ready => return Ok(()),
                Probe::Foreign => foreign_seen = true,
                Probe::NotYet => {}
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(if foreign_seen {
                    Error::ForeignServer {
                        url: self.base_url.clone(),
                    }
                } else {
                    Error::ServerNotReady {
                        url: self.base_url.clone(),
                        waited: timeout,
                        log_tail: self.log_tail(),
                    }
                });
            }
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
    }

    /// Stops the server: SIGTERM to its group, a grace period, SIGKILL; then ends every kernel
    /// it had started, and deletes the log.
    pub async fn stop(mut self) {
        self.stop_in_place().await;
    }

    async fn stop_in_place(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let snapshot = self.tree.snapshot();
        self.tree.ask_to_stop();
        if tokio::time::timeout(STOP_GRACE, child.wait())
            .await
            .is_err()
        {
            self.tree.force_stop();
            let _ = child.wait().await;
        }
        self.tree.end_rest(&snapshot, Duration::from_secs(2)).await;
        log_file::remove_log(&self.log_path);
    }
}

impl Drop for MarimoServer {
    fn drop(&mut self) {
        if self.child.take().is_some() {
            let snapshot = self.tree.snapshot();
            self.tree.force_stop();
            self.tree.kill_now(&snapshot);
            log_file::remove_log(&self.log_path);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn notebooks_folder_is_given_relative_when_inside_the_workspace() {
        let ws = Path::new("/home/a/ws");
        assert_eq!(
            notebooks_argument(ws, Path::new("/home/a/ws/notebooks")),
            "notebooks"
        );
        assert_eq!(
            notebooks_argument(ws, Path::new("/home/a/ws/nb/q3")),
            "nb/q3"
        );
        assert_eq!(notebooks_argument(ws, Path::new("notebooks")), "notebooks");
        assert_eq!(notebooks_argument(ws, Path::new("/home/a/ws")), ".");
        assert_eq!(notebooks_argument(ws, Path::new("/srv/nb")), "/srv/nb");
    }
}
