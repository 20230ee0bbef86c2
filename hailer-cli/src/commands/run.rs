//! `hailer run "question"`: one turn with no terminal interface, for scripts.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use hailer_config::home::HailerHome;
use hailer_protocol::{SessionEnvelope, SessionEvent, StartTurnParams, StartTurnResponse};

use crate::chat::sanitize;
use crate::daemon_client;
use crate::session_client::{self, SessionFlags};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The settings of the workspace's file that wait for `hailer trust`, as the loader words them.
fn trust_warnings(flags: &SessionFlags) -> Vec<String> {
    let overrides = hailer_config::Overrides {
        workspace: flags.workspace.clone(),
        config: flags.config.clone(),
        ..Default::default()
    };
    let Ok(loaded) = hailer_config::LoadInputs::from_process(overrides)
        .map(|inputs| hailer_config::load(&inputs))
    else {
        return Vec::new();
    };
    loaded
        .map(|loaded| {
            loaded
                .warnings
                .into_iter()
                .filter(|warning| warning.area == hailer_config::Area::Trust)
                .map(|warning| warning.message)
                .collect()
        })
        .unwrap_or_default()
}

pub async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    question: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let connected = daemon_client::find_or_start(home).await?;
    let started = session_client::start(&connected.endpoint, flags).await?;
    for warning in trust_warnings(flags) {
        eprintln!("warning: {}", sanitize::clean(&warning));
    }
    let id = &started.session.id;
    let endpoint = &connected.endpoint;

    // Follow the session before sending, so no event of the turn is missed.
    let mut socket = session_client::follow_events(endpoint, id).await?;

    let turn: StartTurnResponse = endpoint
        .post(
            &format!("/v1/sessions/{id}/turns"),
            &StartTurnParams {
                text: question.to_owned(),
                client: "run".to_owned(),
                skill: None,
                prompt: None,
            },
            REQUEST_TIMEOUT,
        )
        .await?
        .json()?;

    let mut wrote_text = false;
    while let Some(message) = socket.next().await {
        let message = message.context("the session's event stream broke")?;
        let Ok(text) = message.into_text() else {
            continue;
        };
        let Ok(envelope) = serde_json::from_str::<SessionEnvelope>(&text) else {
            continue;
        };
        if json {
            println!("{}", sanitize::escape_json_text(&text));
        }
        // Shown text passes the sanitiser; `--json` carries the daemon's JSON as it came.
        let Some(event) = sanitize::clean_all(&envelope.event) else {
            continue;
        };
        match event {
            SessionEvent::TextDelta { turn_id, delta } if turn_id == turn.turn_id && !json => {
                print!("{delta}");
                use std::io::Write;
                let _ = std::io::stdout().flush();
                wrote_text = true;
            }
            SessionEvent::ToolCallStarted {
                turn_id,
                name,
                preview,
                ..
            } if turn_id == turn.turn_id && !json => {
                eprintln!("[{name}] {}", preview.lines().next().unwrap_or_default());
            }
            SessionEvent::TurnFinished { turn_id, text, .. } if turn_id == turn.turn_id => {
                if !json {
                    if !wrote_text {
                        print!("{text}");
                    }
                    println!();
                    // The turn's last event comes after its notebook is on this machine.
                    if let Some(path) = active_notebook(endpoint, &started.session).await {
                        eprintln!("Notebook: {}", sanitize::clean(&path.display().to_string()));
                    }
                }
                return Ok(ExitCode::SUCCESS);
            }
            SessionEvent::TurnFailed {
                turn_id,
                message,
                hint,
            } if turn_id == turn.turn_id => {
                if !json {
                    eprintln!("hailer: {message}");
                    if let Some(hint) = hint {
                        eprintln!("  {hint}");
                    }
                }
                return Ok(ExitCode::FAILURE);
            }
            SessionEvent::TurnCancelled { turn_id } if turn_id == turn.turn_id => {
                if !json {
                    eprintln!("hailer: the turn was cancelled");
                }
                return Ok(ExitCode::FAILURE);
            }
            SessionEvent::Stopped { reason } => bail!("the session stopped: {reason}"),
            _ => {}
        }
    }
    bail!("the session's event stream ended before the turn did")
}

/// The active notebook's path on this machine, as the session reports it now.
async fn active_notebook(
    endpoint: &crate::http::Endpoint,
    session: &hailer_protocol::SessionInfo,
) -> Option<std::path::PathBuf> {
    let list: hailer_protocol::NotebookList = endpoint
        .get(
            &format!("/v1/sessions/{}/notebooks", session.id),
            REQUEST_TIMEOUT,
        )
        .await
        .ok()?
        .json()
        .ok()?;
    Some(std::path::Path::new(&session.notebooks_dir).join(list.active?))
}
