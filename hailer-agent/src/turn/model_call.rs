//! One model call, streamed: text deltas are forwarded as they arrive, and cancellation drops
//! the call's receiver, which aborts the HTTP request at once.

use hailer_model::{Completion, ModelClient, ModelError, ModelEvent, ModelRequest};
use tokio_util::sync::CancellationToken;

use super::events::{EventSink, TurnEvent};
use super::stop::Stop;

/// Runs the call to its completion, forwarding text deltas when `events` is given.
pub(crate) async fn call_model(
    client: &ModelClient,
    request: &ModelRequest,
    events: Option<&dyn EventSink>,
    cancel: &CancellationToken,
) -> Result<Completion, Stop> {
    let mut replies = client.stream(request);
    loop {
        let next = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(Stop::Cancelled),
            next = replies.recv() => next,
        };
        match next {
            Some(Ok(ModelEvent::TextDelta(text))) => {
                if let Some(events) = events {
                    events.emit(TurnEvent::TextDelta { text });
                }
            }
            Some(Ok(ModelEvent::Completed(completion))) => return Ok(completion),
            Some(Ok(_)) => {}
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
