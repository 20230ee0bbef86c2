//! Finding the running hailerd, or starting one.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hailer_config::HailerHome;
use hailer_protocol::{DaemonInfo, RuntimeFile};

use crate::http::Endpoint;

/// How long a probe of a daemon that should be running may take.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long a freshly started daemon may take to answer.
const START_TIMEOUT: Duration = Duration::from_secs(10);
/// The variable naming the hailerd binary to start, for installs that keep it elsewhere.
const DAEMON_BIN_VAR: &str = "HAILER_DAEMON_BIN";

/// A daemon that answered with the token from its runtime file.
#[derive(Debug)]
pub(crate) struct Connected {
    pub endpoint: Endpoint,
    pub info: DaemonInfo,
    pub runtime_path: PathBuf,
}

/// The daemon described by the runtime file, if it answers with that token.
pub(crate) async fn find(home: &HailerHome) -> Option<Connected> {
    let runtime_path = home.runtime_file();
    let file = read_runtime_file(&runtime_path)?;
    let endpoint = Endpoint {
        port: file.port,
        token: file.token,
    };
    let info = endpoint
        .get("/v1/daemon", PROBE_TIMEOUT)
        .await
        .ok()?
        .json::<DaemonInfo>()
        .ok()?;
    (info.pid == file.pid).then_some(Connected {
        endpoint,
        info,
        runtime_path,
    })
}

/// Where the runtime file says a daemon listens, and its pid, without asking it: for a caller
/// whose first request checks the pid itself (`hailer status`, to cost one round-trip).
pub(crate) fn advertised(home: &HailerHome) -> Option<(Endpoint, u32)> {
    let file = read_runtime_file(&home.runtime_file())?;
    Some((
        Endpoint {
            port: file.port,
            token: file.token,
        },
        file.pid,
    ))
}

/// The running daemon, or a new one started in the background.
pub(crate) async fn find_or_start(home: &HailerHome) -> anyhow::Result<Connected> {
    if let Some(connected) = find(home).await {
        return Ok(connected);
    }
    start(home).await
}

/// Starts hailerd detached from this terminal and waits until it answers.
pub(crate) async fn start(home: &HailerHome) -> anyhow::Result<Connected> {
    let log_dir = home.log_dir();
    std::fs::create_dir_all(&log_dir)
        .with_context(|| format!("cannot create {}", log_dir.display()))?;
    let console_log = log_dir.join("hailerd-console.log");
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&console_log)
        .with_context(|| format!("cannot open {}", console_log.display()))?;
    let binary = daemon_binary();
    let mut command = Command::new(&binary);
    command
        // Only what hailerd needs: no key or other secret of this shell reaches its environment.
        .env_clear()
        .envs(hailer_config::daemon_environment(std::env::vars_os()))
        // The level this client chose (`--verbose`, `[hailer] log_level`) is the daemon's too.
        .envs(crate::logging::daemon_variable(crate::logging::chosen()))
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    // Detached from this terminal: Ctrl+C here, or closing it, does not reach the daemon.
    let mut child = hailer_platform::detach(&mut command)
        .spawn()
        .with_context(|| format!("cannot start {}", binary.display()))?;

    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Some(connected) = find(home).await {
            // Reap the child in the background if it was the loser of a start race.
            std::thread::spawn(move || child.wait());
            return Ok(connected);
        }
        // A child that exits with success found another daemon that is still starting up:
        // keep waiting for that one.
        if let Some(status) = child.try_wait()?
            && !status.success()
        {
            bail!(
                "hailerd stopped at start ({status}); see {}",
                console_log.display()
            );
        }
        if Instant::now() >= deadline {
            bail!(
                "hailerd did not answer within {} s; see {} and {}",
                START_TIMEOUT.as_secs(),
                console_log.display(),
                log_dir.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `hailerd` next to this executable, else from `HAILER_DAEMON_BIN`, else from `PATH`.
fn daemon_binary() -> PathBuf {
    if let Some(explicit) = std::env::var_os(DAEMON_BIN_VAR).filter(|value| !value.is_empty()) {
        return PathBuf::from(explicit);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(daemon_file_name())))
        .filter(|candidate| candidate.is_file())
        .unwrap_or_else(|| PathBuf::from(daemon_file_name()))
}

fn daemon_file_name() -> String {
    hailer_platform::executable_name(hailer_platform::Os::CURRENT, "hailerd")
}

fn read_runtime_file(path: &Path) -> Option<RuntimeFile> {
    let bytes = std::fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}
