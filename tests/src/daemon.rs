//! A hailerd started for one test, in a Hailer home of its own.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hailer_protocol::RuntimeFile;

/// How long a daemon may take to write its runtime file.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A running hailerd; killed when dropped.
pub struct TestDaemon {
    /// The daemon's `HAILER_HOME`, a temporary folder deleted when this is dropped.
    pub home: tempfile::TempDir,
    /// The hailerd process; its standard output and error go to [`output_path`] in its home,
    /// so a daemon that writes much never blocks on a pipe no one reads.
    pub child: Child,
    /// The runtime file the daemon wrote at start: its pid, port, bearer token and version.
    pub runtime: RuntimeFile,
}

impl std::fmt::Debug for TestDaemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestDaemon")
            .field("pid", &self.runtime.pid)
            .field("port", &self.runtime.port)
            .finish_non_exhaustive()
    }
}

impl TestDaemon {
    /// Starts hailerd with `args` in a fresh home and waits for its runtime file.
    pub fn start(args: &[&str]) -> anyhow::Result<Self> {
        let home = tempfile::tempdir()?;
        let child = spawn(home.path(), args)?;
        let pid = child.id();
        let runtime = wait_for_runtime_file(home.path(), pid)?;
        Ok(Self {
            home,
            child,
            runtime,
        })
    }

    /// The daemon's address, `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.runtime.port)
    }

    /// `path` (which starts with `/`, such as `/v1/daemon`) appended to [`Self::base_url`].
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    /// The bearer token every `/v1` request to this daemon must carry.
    pub fn token(&self) -> &str {
        &self.runtime.token
    }

    /// Where the daemon keeps its runtime file: `run/hailerd.json` in its home.
    pub fn runtime_file_path(&self) -> PathBuf {
        runtime_path(self.home.path())
    }

    /// The daemon's log folder, `state/logs` in its home.
    pub fn log_dir(&self) -> PathBuf {
        self.home.path().join("state").join("logs")
    }

    /// Everything the daemon has logged so far.
    pub fn log_text(&self) -> String {
        let mut text = String::new();
        if let Ok(entries) = std::fs::read_dir(self.log_dir()) {
            for entry in entries.flatten() {
                text.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        text
    }

    /// What the daemon wrote to its standard output and error so far.
    pub fn output_text(&self) -> String {
        std::fs::read_to_string(output_path(self.home.path())).unwrap_or_default()
    }

    /// Waits for the daemon to exit by itself.
    pub fn wait_exit(&mut self, timeout: Duration) -> anyhow::Result<ExitStatus> {
        wait_child(&mut self.child, timeout)
    }

    /// Sends SIGTERM.
    pub fn terminate(&self) -> anyhow::Result<()> {
        signal(self.runtime.pid, nix::sys::signal::Signal::SIGTERM)
    }
}

impl Drop for TestDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client for loopback that ignores any proxy settings of the environment.
pub fn http_client() -> reqwest::Client {
    http_client_waiting(Duration::from_secs(10))
}

/// [`http_client`] with another limit for a whole request, its reply's body included.
pub fn http_client_waiting(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .build()
        .unwrap_or_default()
}

/// Starts hailerd in `home` without waiting; its standard output and error are appended to
/// [`output_path`].
pub fn spawn(home: &Path, args: &[&str]) -> anyhow::Result<Child> {
    let output = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(output_path(home))
        .context("cannot create hailerd's output file")?;
    Command::new(crate::bins::path("hailerd"))
        .args(args)
        .env("HAILER_HOME", home)
        .env_remove("HAILER_DAEMON_PORT")
        .stdin(Stdio::null())
        .stdout(
            output
                .try_clone()
                .context("cannot share hailerd's output file")?,
        )
        .stderr(output)
        .spawn()
        .context("cannot start hailerd")
}

/// Where [`spawn`] sends the standard output and error of a hailerd whose home is `home`.
pub fn output_path(home: &Path) -> PathBuf {
    home.join("hailerd-output.txt")
}

/// The runtime file of a hailerd whose `HAILER_HOME` is `home`: `run/hailerd.json`.
pub fn runtime_path(home: &Path) -> PathBuf {
    home.join("run").join("hailerd.json")
}

/// Waits until the runtime file in `home` names `pid`.
pub fn wait_for_runtime_file(home: &Path, pid: u32) -> anyhow::Result<RuntimeFile> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(bytes) = std::fs::read(runtime_path(home))
            && let Ok(file) = serde_json::from_slice::<RuntimeFile>(&bytes)
            && file.pid == pid
        {
            return Ok(file);
        }
        if Instant::now() > deadline {
            bail!("hailerd (pid {pid}) wrote no runtime file within {START_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits up to `timeout` for `child` to exit, checking every 20 ms; errors when it is still
/// running by then or its state cannot be read.
pub fn wait_child(child: &mut Child, timeout: Duration) -> anyhow::Result<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            bail!("process {} still running after {timeout:?}", child.id());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` to process `pid`; errors when the pid does not fit an `i32` or the kill
/// fails (for example, no such process).
pub fn signal(pid: u32, signal: nix::sys::signal::Signal) -> anyhow::Result<()> {
    let pid = i32::try_from(pid).context("pid out of range")?;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal)?;
    Ok(())
}
