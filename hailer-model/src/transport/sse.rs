//! Reading a `text/event-stream` body as events, with a deadline for each one.

use std::error::Error;
use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt, TryStreamExt};

use super::TransportError;

/// One server-sent event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `message` when absent.
    pub event: String,
    pub data: String,
}

type EventStream =
    Pin<Box<dyn Stream<Item = Result<eventsource_stream::Event, EventStreamError<String>>> + Send>>;

/// Events from a byte stream; waiting longer than the idle timeout for the next one is an error.
pub struct SseReader {
    events: EventStream,
    idle_timeout: Duration,
}

impl SseReader {
    pub fn new<S, B, E>(bytes: S, idle_timeout: Duration) -> Self
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]> + Send + 'static,
        E: Error + Send + 'static,
    {
        let bytes = bytes.map_err(|error| error_chain(&error));
        Self {
            events: Box::pin(bytes.eventsource()),
            idle_timeout,
        }
    }

    /// The next event; `None` when the body ended.
    pub async fn next(&mut self) -> Option<Result<SseEvent, TransportError>> {
        let next = match tokio::time::timeout(self.idle_timeout, self.events.next()).await {
            Ok(next) => next?,
            Err(_) => return Some(Err(TransportError::IdleTimeout(self.idle_timeout))),
        };
        Some(match next {
            Ok(event) => Ok(SseEvent {
                event: event.event,
                data: event.data,
            }),
            Err(EventStreamError::Transport(reason)) => Err(TransportError::Body(reason)),
            Err(EventStreamError::Utf8(error)) => Err(TransportError::Sse(format!(
                "the event stream is not valid UTF-8 ({error})"
            ))),
            Err(EventStreamError::Parser(error)) => Err(TransportError::Sse(format!(
                "the event stream could not be parsed ({error})"
            ))),
        })
    }
}

/// An error's message followed by its sources', e.g. "error decoding response body: connection
/// closed before message completed". Messages already contained in the previous one are skipped.
pub fn error_chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let message = cause.to_string();
        if !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        source = cause.source();
    }
    text
}
