//! Headless Chromium driven through chromedriver, for the chat page's tests.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::{Value, json};

/// A Chromium session; chromedriver (and the browser with it) is killed when dropped.
pub struct Browser {
    /// The WebDriver client driving the browser: open pages, find elements, run scripts.
    pub client: fantoccini::Client,
    _driver: DriverGuard,
    _profile: tempfile::TempDir,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser").finish_non_exhaustive()
    }
}

impl Browser {
    /// Starts chromedriver and a headless Chromium that keeps its console log.
    pub async fn start() -> anyhow::Result<Self> {
        let chromium = crate::prereqs::chromium();
        let chromedriver = crate::prereqs::chromedriver();
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .with_context(|| format!("cannot start {}", chromedriver.display()))?;
        let profile = tempfile::tempdir()?;
        let driver = DriverGuard(Some(driver));
        let base = format!("http://127.0.0.1:{port}");
        wait_until_ready(&base).await?;
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium_binary(chromium),
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--window-size=1200,900",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else {
            bail!("capabilities are not an object");
        };
        let client = fantoccini::ClientBuilder::new(
            hyper_util::client::legacy::connect::HttpConnector::new(),
        )
        .capabilities(capabilities)
        .connect(&base)
        .await
        .context("chromedriver refused to start Chromium")?;
        Ok(Self {
            client,
            _driver: driver,
            _profile: profile,
        })
    }

    /// Runs `script` (a function body) in the page and answers what it returns.
    pub async fn eval(&self, script: &str) -> anyhow::Result<Value> {
        Ok(self.client.execute(script, Vec::new()).await?)
    }

    /// Waits until `script` returns a truthy value; answers that value.
    pub async fn wait_for(
        &self,
        what: &str,
        script: &str,
        timeout: Duration,
    ) -> anyhow::Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.eval(script).await?;
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(flag) => *flag,
                Value::String(text) => !text.is_empty(),
                Value::Number(number) => number.as_f64() != Some(0.0),
                _ => true,
            };
            if truthy {
                return Ok(value);
            }
            if Instant::now() > deadline {
                bail!("the page did not show {what} within {timeout:?}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The console messages since the last call, as `(level, message)`.
    pub async fn console(&self) -> anyhow::Result<Vec<(String, String)>> {
        let entries = self.client.issue_cmd(BrowserLog).await?;
        Ok(entries
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|entry| {
                        (
                            entry["level"].as_str().unwrap_or_default().to_owned(),
                            entry["message"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Runs a Chrome DevTools Protocol command.
    pub async fn cdp(&self, command: &str, params: Value) -> anyhow::Result<Value> {
        Ok(self
            .client
            .issue_cmd(Cdp {
                command: command.to_owned(),
                params,
            })
            .await?)
    }

    /// Saves a screenshot under `target/test-artifacts/` and answers its path.
    pub async fn screenshot(&self, name: &str) -> anyhow::Result<PathBuf> {
        let png = self.client.screenshot().await?;
        let dir = artifacts_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// Ends the WebDriver session (closing the browser) and then, on drop, kills
    /// chromedriver; errors from closing are ignored.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

/// Kills chromedriver's whole process group (the browser too) when dropped.
struct DriverGuard(Option<Child>);

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
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

/// `target/test-artifacts/`, beside the binaries.
pub fn artifacts_dir() -> PathBuf {
    let binary = crate::bins::path("hailerd");
    let mut dir = binary.parent().map(PathBuf::from).unwrap_or_default();
    dir.pop();
    dir.join("test-artifacts")
}

/// Debian's `/usr/bin/chromium` is a shell wrapper; chromedriver wants the browser itself.
fn chromium_binary(configured: PathBuf) -> String {
    let real = PathBuf::from("/usr/lib/chromium/chromium");
    let is_script = std::fs::read(&configured)
        .map(|bytes| bytes.starts_with(b"#!"))
        .unwrap_or(false);
    if is_script && real.is_file() {
        real.display().to_string()
    } else {
        configured.display().to_string()
    }
}

async fn wait_until_ready(base: &str) -> anyhow::Result<()> {
    let client = crate::daemon::http_client();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(response) = client.get(format!("{base}/status")).send().await
            && let Ok(status) = response.json::<Value>().await
            && status["value"]["ready"] == true
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("chromedriver did not become ready at {base}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (axum::http::Method, Option<String>) {
        (
            axum::http::Method::POST,
            Some(r#"{"type":"browser"}"#.to_owned()),
        )
    }
}

#[derive(Debug)]
struct Cdp {
    command: String,
    params: Value,
}

impl WebDriverCompatibleCommand for Cdp {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (axum::http::Method, Option<String>) {
        let body = json!({ "cmd": self.command, "params": self.params });
        (axum::http::Method::POST, Some(body.to_string()))
    }
}
