//! `hailer cancel`: cancels the turn running in this workspace's session, whichever client
//! started it. Starts nothing.

use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::{CancelResponse, SessionList};

use crate::daemon_client;
use crate::output::outln;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Cancels the running turn; exits 1 when there was none to cancel.
pub(crate) async fn run(home: &HailerHome, overrides: Overrides) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let workspace = hailer_config::find_workspace(&inputs.cwd, &inputs.overrides, &inputs.env)
        .map_err(|problem| anyhow::anyhow!("{}", problem.message))?;
    let Some(connected) = daemon_client::find(home).await else {
        outln!("Nothing to cancel: hailerd is not running.")?;
        return Ok(ExitCode::FAILURE);
    };
    let root = workspace.root.display().to_string();
    let sessions = connected
        .endpoint
        .get("/v1/sessions", REQUEST_TIMEOUT)
        .await?
        .json::<SessionList>()?
        .sessions;
    let Some(session) = sessions.iter().find(|session| session.workspace == root) else {
        outln!("Nothing to cancel: this workspace has no live session.")?;
        return Ok(ExitCode::FAILURE);
    };
    let reply: CancelResponse = connected
        .endpoint
        .post(
            &format!("/v1/sessions/{}/cancel", session.id),
            &serde_json::json!({}),
            REQUEST_TIMEOUT,
        )
        .await?
        .json()?;
    if reply.cancelled {
        outln!("Cancelled the running turn; the conversation stays as it was before it.")?;
        Ok(ExitCode::SUCCESS)
    } else {
        outln!("Nothing to cancel: no turn is running in this workspace's session.")?;
        Ok(ExitCode::FAILURE)
    }
}
