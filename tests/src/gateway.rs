//! A real LiteLLM proxy in front of our scripted handler (`tests/gateway/`), for the tests of what
//! Hailer makes of a third-party gateway: its request handling, its streaming, its errors.
//!
//! The proxy's models name the handler's scripts: `tool-turn`, `empty` and `cut-off`; any other
//! name is one LiteLLM itself does not know. Clients must send [`GATEWAY_KEY`].

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The proxy's master key: the only key it accepts.
pub const GATEWAY_KEY: &str = "sk-gateway-6b1f0e9d2c7a";

/// How long the proxy may take to start (it imports a lot of Python on a busy machine).
const START_WITHIN: Duration = Duration::from_secs(180);

/// A running proxy on a loopback port of its own; it is stopped on drop.
pub struct Gateway {
    child: Option<Child>,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// `tests/gateway/`: the proxy's configuration and our handler.
pub fn gateway_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gateway")
}

impl Gateway {
    /// Starts the proxy and waits until it answers.
    pub fn start() -> Self {
        let litellm = crate::prereqs::litellm();
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}"));
        let log = dir.path().join("litellm.log");
        let log_file =
            std::fs::File::create(&log).unwrap_or_else(|error| panic!("gateway log: {error}"));
        let err_file = log_file
            .try_clone()
            .unwrap_or_else(|error| panic!("gateway log: {error}"));
        let port = crate::free_port();
        let source = gateway_dir();
        let mut command = Command::new(&litellm);
        command
            .args(["--config", "config.yaml", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .current_dir(&source)
            .env("PYTHONPATH", &source)
            .env("HAILER_TEST_GATEWAY_KEY", GATEWAY_KEY)
            // Offline: the model cost map ships with LiteLLM instead of being fetched.
            .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            .env("LITELLM_LOG", "ERROR")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("NO_PROXY", "*")
            .env_remove("HTTPS_PROXY")
            .env_remove("HTTP_PROXY")
            .env_remove("https_proxy")
            .env_remove("http_proxy")
            .env_remove("DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(err_file)
            .process_group(0);
        let child = command
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {}: {error}", litellm.display()));
        let mut gateway = Self {
            child: Some(child),
            port,
            log,
            _dir: dir,
        };
        gateway.wait_until_ready();
        gateway
    }

    fn wait_until_ready(&mut self) {
        let started = Instant::now();
        let url = format!("http://127.0.0.1:{}/health/liveliness", self.port);
        while started.elapsed() < START_WITHIN {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!(
                    "the LiteLLM proxy exited ({status}) before it answered:\n{}",
                    self.log_tail()
                );
            }
            if liveliness(&url) {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        panic!(
            "the LiteLLM proxy did not answer within {} s:\n{}",
            START_WITHIN.as_secs(),
            self.log_tail()
        );
    }

    /// The base URL a provider's `base_url` names.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The end of the proxy's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut file) = std::fs::File::open(&self.log) {
            let _ = file.read_to_string(&mut text);
        }
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

/// A plain `GET` over a fresh connection: whether the proxy answers 200.
fn liveliness(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let Some((address, path)) = rest.split_once('/') else {
        return false;
    };
    let Ok(mut stream) = std::net::TcpStream::connect(address) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /{path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    if std::io::Write::write_all(&mut stream, request.as_bytes()).is_err() {
        return false;
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.starts_with("HTTP/1.1 200")
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            if let Ok(pid) = i32::try_from(child.id()) {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = child.wait();
        }
    }
}
