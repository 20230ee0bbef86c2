//! Did a kernel run out of memory? The engine marks a container `OOMKilled` when the limit
//! stopped it, but when the kernel's own process is killed and marimo (the container's main
//! process) lives on, some engines only send an `oom` event. Both are looked at.

use std::collections::HashMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bollard::Docker;
use bollard::query_parameters::EventsOptions;
use futures_util::StreamExt as _;

use crate::error::{Error, Result};

/// How long reading the engine's past events may take.
const EVENTS_TIMEOUT: Duration = Duration::from_secs(5);
/// Clock slack between this machine and the engine (a VM on some systems).
const CLOCK_SLACK: Duration = Duration::from_secs(2);

/// How a container fared with its memory limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryCheck {
    /// A process of the container was killed for memory since the time asked about.
    pub out_of_memory: bool,
    /// The container still runs.
    pub running: bool,
}

/// Checks container `id` for memory kills since `since`.
pub(super) async fn check_memory(
    docker: &Docker,
    id: &str,
    since: SystemTime,
) -> Result<MemoryCheck> {
    let inspect = docker
        .inspect_container(id, None)
        .await
        .map_err(Error::engine("inspect the kernel container"))?;
    let state = inspect.state.unwrap_or_default();
    let running = state.running.unwrap_or(false);
    if state.oom_killed.unwrap_or(false) {
        return Ok(MemoryCheck {
            out_of_memory: true,
            running,
        });
    }
    let seconds = |time: SystemTime| {
        time.duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs()
            .to_string()
    };
    let options = EventsOptions {
        since: Some(seconds(since.checked_sub(CLOCK_SLACK).unwrap_or(since))),
        until: Some(seconds(SystemTime::now() + CLOCK_SLACK)),
        filters: Some(HashMap::from([
            ("type".to_owned(), vec!["container".to_owned()]),
            ("container".to_owned(), vec![id.to_owned()]),
            ("event".to_owned(), vec!["oom".to_owned()]),
        ])),
    };
    let mut events = docker.events(Some(options));
    let seen = match tokio::time::timeout(EVENTS_TIMEOUT, events.next()).await {
        Ok(Some(Ok(_))) => true,
        Ok(Some(Err(error))) => {
            return Err(Error::engine("read the kernel container's events")(error));
        }
        // No event before `until`, or the engine took too long to say so.
        Ok(None) | Err(_) => false,
    };
    Ok(MemoryCheck {
        out_of_memory: seen,
        running,
    })
}
