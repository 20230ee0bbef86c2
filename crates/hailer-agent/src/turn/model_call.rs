//! One model call, streamed: text deltas are forwarded as they arrive, and cancellation drops
//! the call's receiver, which aborts the HTTP request at once. Every call of a turn draws on the
//! turn's [`StreamBudget`], so a model that streams without end is stopped, not stored.

use hailer_model::{Completion, ModelClient, ModelError, ModelEvent, ModelRequest};
use tokio_util::sync::CancellationToken;

use super::events::{EventSink, TurnEvent};
use super::stop::Stop;

/// What the model may still send in one turn: bytes of text and tool-call arguments, over all
/// the turn's calls (the summary call included).
#[derive(Debug)]
pub(crate) struct StreamBudget {
    cap: usize,
    used: usize,
}

impl StreamBudget {
    pub(crate) fn new(cap: usize) -> Self {
        Self { cap, used: 0 }
    }

    fn charge(&mut self, bytes: usize) -> Result<(), Stop> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.cap {
            return Err(Stop::stream_cap(self.cap));
        }
        Ok(())
    }
}

/// Bytes of a completion that count against the budget.
fn completion_bytes(completion: &Completion) -> usize {
    completion.text.len()
        + completion
            .tool_calls
            .iter()
            .map(|call| call.arguments.len())
            .sum::<usize>()
}

/// Runs the call to its completion, forwarding text deltas when `events` is given. Deltas are
/// charged to `budget` as they arrive; a completion that came whole (no streaming) is charged
/// for what its deltas did not already cover.
pub(crate) async fn call_model(
    client: &ModelClient,
    request: &ModelRequest,
    events: Option<&dyn EventSink>,
    cancel: &CancellationToken,
    budget: &mut StreamBudget,
) -> Result<Completion, Stop> {
    let mut replies = client.stream(request);
    let mut charged = 0usize;
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(Stop::Cancelled),
            next = replies.recv() => next,
        };
        match next {
            Some(Ok(ModelEvent::TextDelta(text))) => {
                budget.charge(text.len())?;
                charged += text.len();
                if let Some(events) = events {
                    events.emit(TurnEvent::TextDelta { text });
                }
            }
            Some(Ok(ModelEvent::ToolCallDone { arguments, .. })) => {
                budget.charge(arguments.len())?;
                charged += arguments.len();
            }
            Some(Ok(ModelEvent::Completed(completion))) => {
                budget.charge(completion_bytes(&completion).saturating_sub(charged))?;
                return Ok(completion);
            }
            Some(Ok(_)) => {}
            Some(Err(error)) if error.refuses_reasoning() && request.reasoning_effort.is_some() => {
                return Err(match Stop::model(&error, client.redactor()) {
                    Stop::Failed { message, hint } => Stop::ReasoningRefused { message, hint },
                    other => other,
                });
            }
            Some(Err(error)) => return Err(Stop::model(&error, client.redactor())),
            None => {
                let error = ModelError::StreamInterrupted {
                    reason: "the call ended without a reply".to_owned(),
                };
                return Err(Stop::model(&error, client.redactor()));
            }
        }
    }
}
