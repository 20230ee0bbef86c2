//! Running the tour: the demo's question as a turn, its steps and answer printed as they come.

use std::io::Write as _;
use std::time::Duration;

use hailer_demo::{TOUR_QUESTION as QUESTION, TOUR_STEPS as STEPS};
use hailer_protocol::{SessionEvent, StartTurnParams, StartTurnResponse};
use tokio::sync::watch;

use crate::http::Endpoint;
use crate::output::{out, outln};
use crate::session_client::{EventSocket, next_envelope};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// How the tour's turn ended.
#[derive(Debug)]
pub(super) enum TourEnd {
    /// The answer, as the model wrote it.
    Answered(String),
    Failed(String),
    Cancelled,
}

/// Sends the question and prints the turn until it ends; Ctrl+C cancels it.
pub(super) async fn run(
    endpoint: &Endpoint,
    id: &str,
    events: &mut EventSocket,
    presses: &mut watch::Receiver<u32>,
) -> anyhow::Result<TourEnd> {
    let reply = endpoint
        .post(
            &format!("/v1/sessions/{id}/turns"),
            &StartTurnParams {
                text: QUESTION.to_owned(),
                client: "demo".to_owned(),
                skill: None,
                prompt: None,
                wait: false,
                env: std::collections::BTreeMap::new(),
            },
            REQUEST_TIMEOUT,
        )
        .await?;
    if let Some(error) = reply.error_body() {
        let hint = error
            .hint
            .map(|hint| format!(" {hint}"))
            .unwrap_or_default();
        return Ok(TourEnd::Failed(format!("{}{hint}", error.message)));
    }
    let turn = reply.json::<StartTurnResponse>()?.turn_id;
    outln!("\nYou: {QUESTION}\n")?;
    let mut step = 0;
    let mut streamed = false;
    loop {
        let envelope = tokio::select! {
            changed = presses.changed() => {
                if changed.is_ok() {
                    eprintln!("Cancelling the tour ...");
                    let _ = endpoint
                        .post(&format!("/v1/sessions/{id}/cancel"), &serde_json::json!({}), REQUEST_TIMEOUT)
                        .await;
                }
                continue;
            }
            envelope = next_envelope(events) => envelope,
        };
        let Some(envelope) = envelope else {
            return Ok(TourEnd::Failed("lost the connection to hailerd".to_owned()));
        };
        match envelope.event {
            SessionEvent::ToolCallStarted { turn_id, name, .. } if turn_id == turn => {
                let title = STEPS.get(step).map_or("", |s| s.title);
                step += 1;
                outln!("  [{name}] step {step} of {}: {title}", STEPS.len())?;
            }
            SessionEvent::ToolCallFinished {
                turn_id, preview, ..
            } if turn_id == turn => {
                let created = STEPS
                    .get(step.saturating_sub(1))
                    .and_then(|s| s.cell)
                    .map(|(name, _)| name);
                if preview.starts_with("ERROR:") || preview.starts_with("Execution failed.") {
                    let why: Vec<&str> = preview.lines().take(3).collect();
                    outln!("      did not work: {}", why.join(" / "))?;
                } else if let Some(cell) = created {
                    outln!("      added the cell {cell} to the notebook")?;
                }
            }
            SessionEvent::TextDelta { turn_id, delta } if turn_id == turn => {
                if !streamed {
                    outln!("\n{}:", hailer_demo::MODEL_LABEL)?;
                    streamed = true;
                }
                out!("{delta}")?;
                let _ = std::io::stdout().flush();
            }
            SessionEvent::TurnFinished { turn_id, text, .. } if turn_id == turn => {
                if !streamed {
                    outln!("\n{}:\n{text}", hailer_demo::MODEL_LABEL)?;
                }
                return Ok(TourEnd::Answered(text));
            }
            SessionEvent::TurnFailed {
                turn_id,
                message,
                hint,
            } if turn_id == turn => {
                let hint = hint.map(|hint| format!(" {hint}")).unwrap_or_default();
                return Ok(TourEnd::Failed(format!("{message}{hint}")));
            }
            SessionEvent::TurnCancelled { turn_id } if turn_id == turn => {
                return Ok(TourEnd::Cancelled);
            }
            SessionEvent::Notice { message, .. } => eprintln!("  {message}"),
            SessionEvent::Stopped { reason } => {
                return Ok(TourEnd::Failed(format!("the session stopped: {reason}")));
            }
            _ => {}
        }
    }
}

/// The cells the answer announced (named in backquotes) that the notebook file does not hold.
pub(super) fn missing_cells(
    answer: &str,
    notebook: &str,
) -> (Vec<&'static str>, Vec<&'static str>) {
    let announced: Vec<&'static str> = STEPS
        .iter()
        .filter_map(|step| step.cell.map(|(name, _)| name))
        .filter(|name| answer.contains(&format!("`{name}`")))
        .collect();
    let missing = announced
        .iter()
        .copied()
        .filter(|name| !notebook.contains(&format!("def {name}(")))
        .collect();
    (announced, missing)
}

#[cfg(test)]
mod tests {
    use super::missing_cells;

    #[test]
    fn announced_cells_are_looked_up_as_functions_of_the_notebook() {
        let answer = "I added 2 cells to the notebook: `load_sales`, `chart_revenue`.";
        let notebook = "@app.cell\ndef load_sales(DATA_DIR, pl):\n    return\n";
        let (announced, missing) = missing_cells(answer, notebook);
        assert_eq!(announced, ["load_sales", "chart_revenue"]);
        assert_eq!(missing, ["chart_revenue"]);
    }
}
