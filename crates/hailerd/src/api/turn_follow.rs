//! One turn, followed on its session's events: as a whole result for `"wait": true`, or as
//! server-sent events for a request that accepts `text/event-stream`.
//!
//! The follower subscribes before the turn starts, so none of the turn's events can be missed;
//! a follower that falls behind the bus catches up from the session's backlog.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::http::{HeaderMap, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use hailer_protocol::{
    SessionEnvelope, SessionEvent, TurnError, TurnOutcome, TurnResult, TurnToolCall, TurnUsage,
};
use tokio::sync::broadcast::{self, error::RecvError};

use hailerd_session::Session;
use hailerd_session::Shared;

/// Whether the request asks for server-sent events: `text/event-stream` among the media
/// ranges of its `Accept` header.
pub(super) fn wants_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|range| range.split(';').next())
        .any(|media| media.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// A session's events from the moment of subscribing, in order and each once.
pub(super) struct TurnFollower {
    session: Arc<Session>,
    events: broadcast::Receiver<Shared<SessionEnvelope>>,
    last_seq: u64,
    caught_up: VecDeque<Shared<SessionEnvelope>>,
}

impl TurnFollower {
    /// Follows `session` from now on: call it before starting the turn.
    pub(super) fn subscribe(session: Arc<Session>) -> Self {
        let (events, last_seq) = session.events.subscribe_counted();
        Self {
            session,
            events,
            last_seq,
            caught_up: VecDeque::new(),
        }
    }

    /// The next event, or `None` when the session's stream has closed.
    pub(super) async fn next(&mut self) -> Option<Shared<SessionEnvelope>> {
        loop {
            if let Some(shared) = self.caught_up.pop_front() {
                self.last_seq = shared.envelope.seq;
                return Some(shared);
            }
            match self.events.recv().await {
                // A live event the catch-up already gave is not given twice.
                Ok(shared) if shared.envelope.seq <= self.last_seq => {}
                Ok(shared) => {
                    self.last_seq = shared.envelope.seq;
                    return Some(shared);
                }
                Err(RecvError::Lagged(_)) => {
                    let (events, missed) = self.session.events.subscribe_after(self.last_seq);
                    self.events = events;
                    self.caught_up.extend(missed.unwrap_or_default());
                }
                Err(RecvError::Closed) => return None,
            }
        }
    }

    /// Follows the turn to its end and gives it as one result.
    pub(super) async fn wait(mut self, turn_id: &str) -> TurnResult {
        let mut collector = TurnCollector::new(turn_id);
        while let Some(shared) = self.next().await {
            if let Some(ending) = collector.take(&shared.envelope.event) {
                let notebook = self.active_notebook().await;
                return collector.finish(ending, notebook);
            }
        }
        collector.finish(
            Ending::Failed(TurnError {
                message: "the daemon stopped before the turn ended".to_owned(),
                hint: None,
            }),
            None,
        )
    }

    /// The turn's events as server-sent events, each an envelope as the WebSocket sends it,
    /// ending with the turn's last event.
    pub(super) fn into_event_stream(
        self,
        turn_id: String,
    ) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
        let state = (self, TurnCollector::new(&turn_id), false);
        let stream = futures_util::stream::unfold(
            state,
            |(mut follower, mut collector, ended)| async move {
                if ended {
                    return None;
                }
                let shared = follower.next().await?;
                let ended = collector.take(&shared.envelope.event).is_some();
                let event = Event::default()
                    .id(shared.envelope.seq.to_string())
                    .data(shared.json.as_str());
                Some((Ok(event), (follower, collector, ended)))
            },
        );
        Sse::new(stream).keep_alive(KeepAlive::default())
    }

    /// The active notebook's path on this machine, as the session reports it now (the turn's
    /// notebooks are copied back before its last event goes out).
    async fn active_notebook(&self) -> Option<String> {
        let active = self.session.list_notebooks().await.active?;
        Some(
            self.session
                .notebooks_dir()
                .join(active)
                .display()
                .to_string(),
        )
    }
}

/// How a followed turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ending {
    Finished { answer: String, usage: TurnUsage },
    Failed(TurnError),
    Cancelled,
}

/// Folds one turn's events into its [`TurnResult`]; events of other turns are ignored.
#[derive(Debug)]
pub(super) struct TurnCollector {
    turn_id: String,
    tool_calls: Vec<TurnToolCall>,
    charts: Vec<hailer_protocol::Chart>,
    usage: TurnUsage,
}

impl TurnCollector {
    pub(super) fn new(turn_id: &str) -> Self {
        Self {
            turn_id: turn_id.to_owned(),
            tool_calls: Vec::new(),
            charts: Vec::new(),
            usage: TurnUsage::default(),
        }
    }

    /// Takes one event; answers how the turn ended when this event ends it. A stopped session
    /// ends every turn.
    pub(super) fn take(&mut self, event: &SessionEvent) -> Option<Ending> {
        if let SessionEvent::Stopped { reason } = event {
            return Some(Ending::Failed(TurnError {
                message: format!("the session stopped: {reason}"),
                hint: None,
            }));
        }
        if event_turn(event) != Some(self.turn_id.as_str()) {
            return None;
        }
        match event {
            SessionEvent::ToolCallStarted {
                call_id,
                name,
                code,
                ..
            } => self.tool_calls.push(TurnToolCall {
                id: call_id.clone(),
                name: name.clone(),
                code: code.clone(),
                ok: None,
                summary: String::new(),
                result: String::new(),
            }),
            SessionEvent::ToolCallFinished {
                call_id,
                ok,
                preview,
                output,
                ..
            } => {
                // Ids are the model's: a reused one names the latest call that has not ended.
                if let Some(call) = self
                    .tool_calls
                    .iter_mut()
                    .rev()
                    .find(|call| call.id == *call_id && call.ok.is_none())
                {
                    call.ok = Some(*ok);
                    call.summary.clone_from(preview);
                    call.result.clone_from(output);
                }
            }
            SessionEvent::Chart { chart, .. } => self.charts.push(chart.clone()),
            SessionEvent::Usage { usage, .. } => self.usage = *usage,
            SessionEvent::TurnFinished { text, usage, .. } => {
                return Some(Ending::Finished {
                    answer: text.clone(),
                    usage: *usage,
                });
            }
            SessionEvent::TurnFailed { message, hint, .. } => {
                return Some(Ending::Failed(TurnError {
                    message: message.clone(),
                    hint: hint.clone(),
                }));
            }
            SessionEvent::TurnCancelled { .. } => return Some(Ending::Cancelled),
            _ => {}
        }
        None
    }

    /// The result of a turn that ended as `ending`.
    pub(super) fn finish(self, ending: Ending, notebook: Option<String>) -> TurnResult {
        let (outcome, answer, error, usage) = match ending {
            Ending::Finished { answer, usage } => (TurnOutcome::Finished, answer, None, usage),
            Ending::Failed(error) => (TurnOutcome::Failed, String::new(), Some(error), self.usage),
            Ending::Cancelled => (TurnOutcome::Cancelled, String::new(), None, self.usage),
        };
        TurnResult {
            outcome,
            answer,
            error,
            tool_calls: self.tool_calls,
            charts: self.charts,
            notebook,
            usage,
        }
    }
}

/// The turn an event belongs to, for the events that belong to one.
fn event_turn(event: &SessionEvent) -> Option<&str> {
    match event {
        SessionEvent::TurnStarted { turn_id, .. }
        | SessionEvent::TextDelta { turn_id, .. }
        | SessionEvent::ToolCallStarted { turn_id, .. }
        | SessionEvent::ToolCallFinished { turn_id, .. }
        | SessionEvent::Chart { turn_id, .. }
        | SessionEvent::Usage { turn_id, .. }
        | SessionEvent::TurnFinished { turn_id, .. }
        | SessionEvent::TurnFailed { turn_id, .. }
        | SessionEvent::TurnCancelled { turn_id } => Some(turn_id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::http::HeaderValue;

    fn started(turn: &str, call: &str) -> SessionEvent {
        SessionEvent::ToolCallStarted {
            turn_id: turn.to_owned(),
            call_id: call.to_owned(),
            name: "marimo_execute".to_owned(),
            preview: "print(1)".to_owned(),
            code: Some("print(1)".to_owned()),
            client: None,
        }
    }

    fn finished(turn: &str, call: &str, ok: bool, output: &str) -> SessionEvent {
        SessionEvent::ToolCallFinished {
            turn_id: turn.to_owned(),
            call_id: call.to_owned(),
            name: "marimo_execute".to_owned(),
            ok,
            preview: output.chars().take(3).collect(),
            output: output.to_owned(),
        }
    }

    #[test]
    fn a_turn_is_folded_into_its_result_and_other_turns_are_ignored() {
        let mut collector = TurnCollector::new("t1");
        let usage = TurnUsage {
            input_tokens: Some(10),
            output_tokens: Some(2),
        };
        let events = [
            started("t0", "old"),
            started("t1", "c1"),
            finished("t1", "c1", false, "NameError: x"),
            // The endpoint reused the id: the second call keeps its own result.
            started("t1", "c1"),
            finished("t1", "c1", true, "42"),
            finished("t0", "old", true, "stale"),
            SessionEvent::Usage {
                turn_id: "t1".to_owned(),
                usage,
            },
        ];
        for event in &events {
            assert_eq!(collector.take(event), None);
        }
        let ending = collector.take(&SessionEvent::TurnFinished {
            turn_id: "t1".to_owned(),
            text: "The answer is 42.".to_owned(),
            usage,
        });
        let result = collector.finish(ending.unwrap(), Some("/w/notebooks/a.py".to_owned()));
        assert_eq!(result.outcome, TurnOutcome::Finished);
        assert_eq!(result.answer, "The answer is 42.");
        assert_eq!(result.usage, usage);
        let calls: Vec<_> = result
            .tool_calls
            .iter()
            .map(|call| (call.id.as_str(), call.ok, call.result.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                ("c1", Some(false), "NameError: x"),
                ("c1", Some(true), "42")
            ]
        );
        assert_eq!(result.notebook.as_deref(), Some("/w/notebooks/a.py"));
    }

    #[test]
    fn failures_cancellations_and_a_stopped_session_end_the_turn() {
        let mut collector = TurnCollector::new("t1");
        collector.take(&started("t1", "c1"));
        let ending = collector
            .take(&SessionEvent::TurnFailed {
                turn_id: "t1".to_owned(),
                message: "the model endpoint refused the key".to_owned(),
                hint: Some("run hailer login".to_owned()),
            })
            .unwrap();
        let result = collector.finish(ending, None);
        assert_eq!(result.outcome, TurnOutcome::Failed);
        assert_eq!(
            result.error.unwrap().hint.as_deref(),
            Some("run hailer login")
        );
        // A call the turn never finished has no verdict.
        assert_eq!(result.tool_calls[0].ok, None);

        let mut collector = TurnCollector::new("t2");
        assert_eq!(
            collector.take(&SessionEvent::TurnCancelled {
                turn_id: "t1".to_owned()
            }),
            None
        );
        assert_eq!(
            collector.take(&SessionEvent::TurnCancelled {
                turn_id: "t2".to_owned()
            }),
            Some(Ending::Cancelled)
        );

        let mut collector = TurnCollector::new("t3");
        let stopped = collector.take(&SessionEvent::Stopped {
            reason: "stopped through the API".to_owned(),
        });
        assert!(
            matches!(stopped, Some(Ending::Failed(error)) if error.message.contains("stopped through the API"))
        );
    }

    #[test]
    fn event_streams_are_asked_for_through_accept() {
        let cases = [
            ("text/event-stream", true),
            ("TEXT/Event-Stream; charset=utf-8", true),
            ("application/json, text/event-stream;q=0.9", true),
            ("application/json", false),
            ("text/event-streams", false),
            ("*/*", false),
        ];
        for (accept, expected) in cases {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap());
            assert_eq!(wants_event_stream(&headers), expected, "{accept}");
        }
        assert!(!wants_event_stream(&HeaderMap::new()));
    }
}
