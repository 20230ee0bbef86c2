//! Watching a running kernel: whether one of its containers ended, and how (removed from
//! outside, out of memory, or stopped with an exit code); and following the kernel's output.

use std::time::Duration;

use bollard::Docker;
use bollard::query_parameters::LogsOptions;
use bytes::Bytes;
use futures_util::{Stream, StreamExt as _};

use super::removal::Object;
use crate::error::{Error, Result, engine_said, engine_status};

/// `docker rm -f` stops a container before it removes it: how long to wait before looking again,
/// so a removal is not reported as a plain stop.
const REMOVAL_SETTLE: Duration = Duration::from_millis(600);

/// How a container of a kernel ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The container is gone (or going): someone removed it.
    Removed {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
    },
    /// The engine stopped it for going past its memory limit.
    OutOfMemory {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
        /// The exit code the engine recorded, or -1 when it recorded none.
        code: i64,
    },
    /// It stopped with this exit code (137: killed, by `docker kill` or `docker stop`).
    Exited {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
        /// The container's exit code, or -1 when the engine recorded none.
        code: i64,
    },
}

/// A container of the kernel and its role in messages (`kernel`, `forwarder`).
#[derive(Debug, Clone)]
pub(super) struct WatchedContainer {
    pub object: Object,
    pub role: &'static str,
}

enum Seen {
    Running,
    Gone,
    Stopped {
        oom: bool,
        code: i64,
        removing: bool,
    },
}

async fn look(docker: &Docker, object: &Object) -> Result<Seen> {
    let inspect = match docker.inspect_container(&object.id, None).await {
        Ok(inspect) => inspect,
        Err(error) if engine_status(&error) == Some(404) => return Ok(Seen::Gone),
        Err(error) => {
            return Err(Error::Engine {
                what: format!("inspect {}", object.name),
                said: engine_said(&error),
            });
        }
    };
    let state = inspect.state.unwrap_or_default();
    if state.running.unwrap_or(false) {
        return Ok(Seen::Running);
    }
    let removing = state
        .status
        .is_some_and(|status| status.to_string().eq_ignore_ascii_case("removing"));
    Ok(Seen::Stopped {
        oom: state.oom_killed.unwrap_or(false),
        code: state.exit_code.unwrap_or(-1),
        removing,
    })
}

/// The first of `containers` that ended, and how; `None` while all run.
pub(super) async fn first_ended(
    docker: &Docker,
    containers: &[WatchedContainer],
) -> Result<Option<Ended>> {
    for watched in containers {
        let role = watched.role;
        match look(docker, &watched.object).await? {
            Seen::Running => continue,
            Seen::Gone | Seen::Stopped { removing: true, .. } => {
                return Ok(Some(Ended::Removed { role }));
            }
            Seen::Stopped {
                oom: true, code, ..
            } => return Ok(Some(Ended::OutOfMemory { role, code })),
            Seen::Stopped { code, .. } => {
                tokio::time::sleep(REMOVAL_SETTLE).await;
                return Ok(Some(match look(docker, &watched.object).await {
                    Ok(Seen::Gone | Seen::Stopped { removing: true, .. }) => {
                        Ended::Removed { role }
                    }
                    _ => Ended::Exited { role, code },
                }));
            }
        }
    }
    Ok(None)
}

/// The container's output from its last `tail` lines on, as it is written; ends when the
/// container stops. The bytes are raw: the caller masks the token.
pub(super) fn follow(
    docker: &Docker,
    id: &str,
    tail: usize,
) -> impl Stream<Item = Result<Bytes>> + Send + use<> {
    let options = LogsOptions {
        follow: true,
        stdout: true,
        stderr: true,
        tail: tail.to_string(),
        ..Default::default()
    };
    docker.logs(id, Some(options)).map(|item| {
        item.map(bollard::container::LogOutput::into_bytes)
            .map_err(Error::engine("follow the kernel's log"))
    })
}
