//! Waiting for the kernel's marimo: `/health` answers healthy, `/api/sessions` refuses a
//! request without a token and accepts ours. Before every probe the containers are checked, so
//! a kernel that died (out of memory, a bad image) is reported as such at once.

use std::time::Duration;

use bollard::Docker;
use bollard::query_parameters::LogsOptions;
use futures_util::StreamExt as _;
use hailer_marimo::mask_token;
use hailer_marimo::{ReadinessProbe as Probe, probe_readiness as probe};
use secrecy::SecretString;

use super::removal::Object;
use crate::error::{Error, Result, engine_said, engine_status};

/// Time between probes, and each probe request's own limit.
const PROBE_INTERVAL: Duration = Duration::from_millis(50);
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// How many log lines a failure shows.
pub(super) const LOG_TAIL_LINES: usize = 15;

/// A container to watch while waiting, and what to call it in messages.
pub(super) struct Watched<'a> {
    pub object: &'a Object,
    pub role: &'static str,
}

/// Waits until marimo at `base_url` answers to `token` only, or fails with the reason.
pub(super) async fn wait_ready(
    docker: &Docker,
    watched: &[Watched<'_>],
    kernel: &Object,
    base_url: &str,
    token: &SecretString,
    memory: &str,
    timeout: Duration,
) -> Result<()> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(PROBE_TIMEOUT)
        .build()
        .map_err(|e| Error::InvalidSetting(format!("cannot make an HTTP client: {e}")))?;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let began = std::time::Instant::now();
        for item in watched {
            check_running(docker, item, token, memory).await?;
        }
        let checked = began.elapsed();
        let result = probe(&client, base_url, token).await;
        tracing::trace!(?checked, probed = ?began.elapsed(), ?result, "readiness probe");
        if result == Probe::Ready {
            return Ok(());
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Error::NotReady {
                url: base_url.to_owned(),
                waited: timeout,
                log_tail: log_tail(docker, &kernel.id, token).await,
            });
        }
        tokio::time::sleep(PROBE_INTERVAL).await;
    }
}

/// Fails when the container stopped or vanished.
pub(super) async fn check_running(
    docker: &Docker,
    item: &Watched<'_>,
    token: &SecretString,
    memory: &str,
) -> Result<()> {
    let inspect = match docker.inspect_container(&item.object.id, None).await {
        Ok(inspect) => inspect,
        Err(error) if engine_status(&error) == Some(404) => {
            return Err(Error::RemovedFromOutside { role: item.role });
        }
        Err(error) => {
            return Err(Error::Engine {
                what: format!("inspect the {} container", item.role),
                said: engine_said(&error),
            });
        }
    };
    let state = inspect.state.unwrap_or_default();
    if state.running.unwrap_or(false) {
        return Ok(());
    }
    let log_tail = log_tail(docker, &item.object.id, token).await;
    if state.oom_killed.unwrap_or(false) {
        return Err(Error::OutOfMemory {
            role: item.role,
            memory: memory.to_owned(),
            log_tail,
        });
    }
    Err(Error::ExitedEarly {
        role: item.role,
        code: state.exit_code.unwrap_or(-1),
        log_tail,
    })
}

/// The last lines of a container's output, with the token masked.
pub(crate) async fn log_tail(docker: &Docker, id: &str, token: &SecretString) -> String {
    let options = LogsOptions {
        stdout: true,
        stderr: true,
        tail: LOG_TAIL_LINES.to_string(),
        ..Default::default()
    };
    let mut stream = docker.logs(id, Some(options));
    let mut text = String::new();
    let read = async {
        while let Some(Ok(chunk)) = stream.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk.into_bytes()));
            if text.len() > 64 * 1024 {
                break;
            }
        }
    };
    if tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .is_err()
    {
        text.push_str("\n(the log could not be read in time)");
    }
    let text = mask_token(text.trim_end(), token);
    if text.is_empty() {
        "(no output)".to_owned()
    } else {
        text
    }
}
