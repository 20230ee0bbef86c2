//! Removing containers and networks by id, telling "gone" (removed, or someone else removed it
//! first) from "failed" (the engine refused or could not be reached).

use std::time::Duration;

use bollard::Docker;
use bollard::query_parameters::RemoveContainerOptions;

use crate::error::{engine_said, engine_status};

/// How often a network whose containers are still detaching is tried again.
const NETWORK_RETRIES: usize = 6;
const NETWORK_RETRY_PAUSE: Duration = Duration::from_millis(500);

/// An object the engine made for us: its id and its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Object {
    /// The engine's id, which every removal and inspection uses, so an object of the same
    /// name made later by someone else is never touched.
    pub id: String,
    /// The object's name, as shown in messages and removal reports.
    pub name: String,
}

/// What one removal pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Removal {
    /// Names of what is gone now.
    pub removed: Vec<String>,
    /// Names and what the engine said, for what is still there.
    pub failed: Vec<(String, String)>,
}

impl Removal {
    /// Whether every object the pass tried to remove is gone (nothing in `failed`).
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }

    fn merge(&mut self, other: Removal) {
        self.removed.extend(other.removed);
        self.failed.extend(other.failed);
    }

    /// One line for people: "Removed a, b." plus one line per failure.
    pub fn summary(&self) -> String {
        let mut lines = Vec::new();
        if !self.removed.is_empty() {
            lines.push(format!("Removed {}.", self.removed.join(", ")));
        }
        for (name, said) in &self.failed {
            lines.push(format!("Could not remove {name}: docker said: {said}"));
        }
        lines.join("\n")
    }
}

/// Removes `containers` (forcefully, running or not), then `networks`.
pub(super) async fn remove_all(
    docker: &Docker,
    containers: &[Object],
    networks: &[Object],
) -> Removal {
    let mut removal = Removal::default();
    for container in containers {
        removal.merge(remove_container(docker, container).await);
    }
    for network in networks {
        removal.merge(remove_network(docker, network).await);
    }
    removal
}

async fn remove_container(docker: &Docker, container: &Object) -> Removal {
    let outcome = docker
        .remove_container(&container.id, Some(forced_removal()))
        .await;
    let gone = match &outcome {
        Ok(()) => true,
        Err(error) => {
            is_gone(error)
                || matches!(
                    docker.inspect_container(&container.id, None).await,
                    Err(ref inspect) if engine_status(inspect) == Some(404)
                )
        }
    };
    verdict(&container.name, gone, outcome.err())
}

async fn remove_network(docker: &Docker, network: &Object) -> Removal {
    let mut attempt = 0;
    loop {
        let outcome = docker.remove_network(&network.id).await;
        let error = match outcome {
            Ok(()) => return verdict(&network.name, true, None),
            Err(error) if is_gone(&error) => return verdict(&network.name, true, None),
            Err(error) => error,
        };
        attempt += 1;
        let busy = engine_said(&error).contains("active endpoints");
        if busy && attempt < NETWORK_RETRIES {
            tokio::time::sleep(NETWORK_RETRY_PAUSE).await;
            continue;
        }
        let gone = matches!(
            docker.inspect_network(&network.id, None).await,
            Err(ref inspect) if engine_status(inspect) == Some(404)
        );
        return verdict(&network.name, gone, Some(error));
    }
}

/// Removes a container running or not, with its anonymous volumes.
fn forced_removal() -> RemoveContainerOptions {
    RemoveContainerOptions {
        force: true,
        v: true,
        ..Default::default()
    }
}

/// 404, or a removal someone else already started.
fn is_gone(error: &bollard::errors::Error) -> bool {
    match engine_status(error) {
        Some(404) => true,
        Some(409) => engine_said(error).contains("already in progress"),
        _ => false,
    }
}

fn verdict(name: &str, gone: bool, error: Option<bollard::errors::Error>) -> Removal {
    if gone {
        Removal {
            removed: vec![name.to_owned()],
            failed: Vec::new(),
        }
    } else {
        let said = error
            .map(|e| engine_said(&e))
            .unwrap_or_else(|| "it is still there".to_owned());
        Removal {
            removed: Vec::new(),
            failed: vec![(name.to_owned(), said)],
        }
    }
}

/// A create request whose answer never came because the start was dropped while it was on its
/// way: the engine may still make the object, a moment later, under the name we gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Unanswered {
    Container(String),
    Network(String),
}

/// How long an unanswered create is waited for before it counts as never made.
const UNANSWERED_TRIES: usize = 12;
const UNANSWERED_PAUSE: Duration = Duration::from_millis(250);

/// Removes the objects of unanswered creates by name, containers first. One the engine has
/// not made (yet) is looked for again a few times, since the create may land after the drop.
async fn remove_unanswered(docker: &Docker, unanswered: &[Unanswered]) -> Removal {
    let mut removal = Removal::default();
    let (containers, networks): (Vec<_>, Vec<_>) = unanswered
        .iter()
        .partition(|item| matches!(item, Unanswered::Container(_)));
    for item in containers.into_iter().chain(networks) {
        for _ in 0..UNANSWERED_TRIES {
            let (name, outcome) = match item {
                Unanswered::Container(name) => (
                    name,
                    docker.remove_container(name, Some(forced_removal())).await,
                ),
                Unanswered::Network(name) => (name, docker.remove_network(name).await),
            };
            match outcome {
                Ok(()) => {
                    removal.removed.push(name.clone());
                    break;
                }
                Err(error) if engine_status(&error) == Some(404) => {
                    tokio::time::sleep(UNANSWERED_PAUSE).await;
                }
                Err(error) => {
                    removal.failed.push((name.clone(), engine_said(&error)));
                    break;
                }
            }
        }
    }
    removal
}

/// Removes what a dropped start or kernel left behind: the objects of unanswered creates, then
/// the containers, then the networks. It runs on a thread of its own with its own runtime and
/// is waited for: a spawned task would be lost when the caller's runtime is shutting down (a
/// panic, the end of `main`), which is exactly when this is needed.
pub(super) fn remove_in_background(
    docker: Docker,
    unanswered: Vec<Unanswered>,
    containers: Vec<Object>,
    networks: Vec<Object>,
) {
    if unanswered.is_empty() && containers.is_empty() && networks.is_empty() {
        return;
    }
    let work = async move {
        let mut removal = remove_unanswered(&docker, &unanswered).await;
        removal.merge(remove_all(&docker, &containers, &networks).await);
        if removal.is_complete() {
            tracing::info!(removed = ?removal.removed, "removed the containers of a kernel that was dropped");
        } else {
            tracing::warn!(failed = ?removal.failed, "could not remove every container of a dropped kernel; `hailer kernel stop` removes them");
        }
    };
    let thread = std::thread::spawn(move || {
        match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(work),
            Err(error) => {
                tracing::warn!(%error, "no runtime to remove a dropped kernel's containers");
            }
        }
    });
    let _ = thread.join();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_what_was_removed_and_what_failed() {
        let removal = Removal {
            removed: vec!["a".to_owned(), "b".to_owned()],
            failed: vec![("c".to_owned(), "permission denied".to_owned())],
        };
        assert_eq!(
            removal.summary(),
            "Removed a, b.\nCould not remove c: docker said: permission denied"
        );
        assert!(!removal.is_complete());
    }
}
