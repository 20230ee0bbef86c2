//! `hailer kernel pull` and `hailer kernel stop`.

use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::{DockerAvailability, KernelPullParams, KernelStopParams, KernelStopResponse};

use super::{effective_image, run_job};
use crate::daemon_client;
use crate::output::out;

/// Ending a session copies its notebooks back first, which may take up to a minute.
const STOP_TIMEOUT: Duration = Duration::from_secs(180);

/// Downloads the image this workspace uses and checks its contract.
pub(crate) async fn pull(
    home: &HailerHome,
    overrides: Overrides,
    verbose: bool,
) -> anyhow::Result<()> {
    let image = effective_image(&overrides)?;
    let connected = daemon_client::find_or_start(home).await?;
    run_job(
        &connected.endpoint,
        "/v1/kernel/pull",
        &KernelPullParams { image },
        verbose,
    )
    .await?;
    Ok(())
}

/// Removes every container and network of this workspace; exits 1 when one stays.
pub(crate) async fn stop(home: &HailerHome, overrides: Overrides) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let workspace = hailer_config::find_workspace(&inputs.cwd, &inputs.overrides, &inputs.env)
        .map_err(|problem| anyhow::anyhow!("{}", problem.message))?;
    let connected = daemon_client::find_or_start(home).await?;
    let reply: KernelStopResponse = connected
        .endpoint
        .post(
            "/v1/kernel/stop",
            &KernelStopParams {
                workspace: workspace.root.display().to_string(),
            },
            STOP_TIMEOUT,
        )
        .await?
        .json()?;
    out!("{}", describe(&reply))?;
    Ok(if reply.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// What `hailer kernel stop` prints.
fn describe(reply: &KernelStopResponse) -> String {
    let mut lines = Vec::new();
    if let Some(session) = &reply.stopped_session {
        lines.push(format!(
            "Ended this workspace's session {session}; its notebooks were copied back first."
        ));
    }
    match reply.docker {
        DockerAvailability::Available => {}
        DockerAvailability::NotInstalled => {
            lines.push(
                "No kernel is running for this workspace (Docker is not installed).".to_owned(),
            );
        }
        DockerAvailability::NotRunning => lines.push(format!(
            "Docker is not running, so leftover kernels of this workspace could not be checked: {}",
            reply.docker_message.as_deref().unwrap_or("no answer")
        )),
    }
    if reply.docker == DockerAvailability::Available {
        if reply.removed.is_empty() && reply.failed.is_empty() && reply.stopped_session.is_none() {
            lines.push("No kernel is running for this workspace.".to_owned());
        } else if !reply.removed.is_empty() {
            lines.push(format!("Removed {}.", reply.removed.join(", ")));
        }
    }
    for failure in &reply.failed {
        lines.push(format!(
            "Could not remove {}: docker said: {}",
            failure.name, failure.said
        ));
    }
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(removed: &[&str], docker: DockerAvailability) -> KernelStopResponse {
        KernelStopResponse {
            removed: removed.iter().map(|name| (*name).to_owned()).collect(),
            failed: Vec::new(),
            stopped_session: None,
            docker,
            docker_message: Some("connection refused".to_owned()),
        }
    }

    #[test]
    fn the_stop_report_says_what_happened() {
        assert_eq!(
            describe(&reply(&[], DockerAvailability::Available)),
            "No kernel is running for this workspace.\n"
        );
        assert_eq!(
            describe(&reply(
                &["hailer-kernel-a", "hailer-net-a"],
                DockerAvailability::Available
            )),
            "Removed hailer-kernel-a, hailer-net-a.\n"
        );
        assert!(
            describe(&reply(&[], DockerAvailability::NotRunning))
                .contains("could not be checked: connection refused")
        );
        let mut failed = reply(&["a"], DockerAvailability::Available);
        failed.failed.push(hailer_protocol::KernelStopFailure {
            name: "b".to_owned(),
            said: "busy".to_owned(),
        });
        failed.stopped_session = Some("s_1".to_owned());
        assert_eq!(
            describe(&failed),
            "Ended this workspace's session s_1; its notebooks were copied back first.\nRemoved a.\nCould not remove b: docker said: busy\n"
        );
    }
}
