//! `hailer kernel stop` on the daemon's side: this daemon's session of the workspace ends (its
//! notebooks are copied back first), then every container and network labelled with the
//! workspace goes, whichever session (of whichever daemon) started it.

use std::path::Path;

use hailer_docker::{Engine, Error};
use hailer_protocol::{DockerAvailability, KernelStopFailure, KernelStopResponse};

use super::Sessions;

/// What a session ended this way is told.
const STOP_REASON: &str = "`hailer kernel stop` ended this workspace's kernel";

/// Stops what runs for `workspace` and says what was removed.
pub async fn stop(sessions: &Sessions, workspace: &Path) -> KernelStopResponse {
    let workspace_id = hailer_docker::workspace_id(workspace);
    let engine = Engine::connect().await;
    // Names first: what the session's own stop removes is reported too.
    let before = match &engine {
        Ok(engine) => hailer_docker::list_workspace_objects(engine, &workspace_id)
            .await
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    let stopped_session = sessions.stop_workspace(workspace, STOP_REASON).await;
    let engine = match engine {
        Ok(engine) => engine,
        Err(error) => {
            let docker = match error {
                Error::NotInstalled { .. } => DockerAvailability::NotInstalled,
                _ => DockerAvailability::NotRunning,
            };
            return KernelStopResponse {
                removed: Vec::new(),
                failed: Vec::new(),
                stopped_session,
                docker,
                docker_message: Some(error.without_runtime_alternative()),
            };
        }
    };
    let (mut removed, failed) = match hailer_docker::stop_workspace(&engine, &workspace_id).await {
        Ok(removal) => (removal.removed, removal.failed),
        Err(error) => (
            Vec::new(),
            vec![("this workspace's containers".to_owned(), error.to_string())],
        ),
    };
    for name in before.into_iter().rev() {
        let failed_now = failed.iter().any(|(failed, _)| *failed == name);
        if !failed_now && !removed.contains(&name) {
            removed.insert(0, name);
        }
    }
    tracing::info!(workspace = %workspace.display(), ?removed, failed = failed.len(), "kernel stop");
    KernelStopResponse {
        removed,
        failed: failed
            .into_iter()
            .map(|(name, said)| KernelStopFailure { name, said })
            .collect(),
        stopped_session,
        docker: DockerAvailability::Available,
        docker_message: None,
    }
}
