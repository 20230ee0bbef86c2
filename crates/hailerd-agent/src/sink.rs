//! Turning a turn's events into session events, for every attached client.

use std::sync::{Mutex, Weak};

use hailer_agent::{EventSink, TurnEvent};
use hailer_protocol::{SessionEvent, TurnUsage};
use tokio::sync::oneshot;

use hailerd_session::Session;

/// Publishes a turn's events on the session's bus and keeps them for clients that attach
/// mid-turn.
pub(super) struct SessionSink {
    session: Weak<Session>,
    client: String,
    turn_id: Mutex<String>,
    started: Mutex<Option<oneshot::Sender<String>>>,
    /// Called just before the turn's last event is published.
    on_end: Box<dyn Fn() + Send + Sync>,
    /// Called when the endpoint refused the default reasoning setting, so later turns leave
    /// it out.
    on_reasoning_dropped: Box<dyn Fn() + Send + Sync>,
    /// The turn's last event, held back until [`Self::release`]: what follows the turn for the
    /// client that asked (a docker kernel's notebooks copied back) happens before it goes out.
    last: Mutex<Option<SessionEvent>>,
}

impl SessionSink {
    pub(super) fn new(
        session: Weak<Session>,
        client: String,
        on_end: Box<dyn Fn() + Send + Sync>,
        on_reasoning_dropped: Box<dyn Fn() + Send + Sync>,
    ) -> (Self, oneshot::Receiver<String>) {
        let (sender, receiver) = oneshot::channel();
        (
            Self {
                session,
                client,
                turn_id: Mutex::new(String::new()),
                started: Mutex::new(Some(sender)),
                on_end,
                on_reasoning_dropped,
                last: Mutex::new(None),
            },
            receiver,
        )
    }

    fn turn_id(&self) -> String {
        self.turn_id.lock().map(|id| id.clone()).unwrap_or_default()
    }
}

impl SessionSink {
    /// Publishes the turn's held last event, once: the agent is free first, so a client that
    /// acts on it is not refused as busy; `history`, the conversation with this turn, replaces
    /// what attaching clients are sent. Call it while the turn still holds the conversation
    /// store.
    pub(super) fn release(&self, history: Option<Vec<hailer_protocol::PastTurn>>) {
        let Some(last) = self.last.lock().ok().and_then(|mut held| held.take()) else {
            return;
        };
        (self.on_end)();
        if let Some(session) = self.session.upgrade() {
            let turn_id = self.turn_id();
            session.audit.set_turn(None);
            session.charts.set_turn(None);
            session.publish_turn_event(last);
            // Late clients no longer need the turn's events. Cleared here, while this turn still
            // holds the conversation store, so a next turn's events are never dropped with them.
            session.end_turn_replay(history, &turn_id);
        }
    }
}

impl EventSink for SessionSink {
    fn emit(&self, event: TurnEvent) {
        let Some(session) = self.session.upgrade() else {
            return;
        };
        if let TurnEvent::Started { turn_id, .. } = &event
            && let Ok(mut id) = self.turn_id.lock()
        {
            id.clone_from(turn_id);
            session.audit.set_turn(Some((turn_id, &self.client)));
            session.charts.set_turn(Some(turn_id));
        }
        let turn_id = self.turn_id();
        let published = match event {
            TurnEvent::ReasoningDropped { text } => {
                (self.on_reasoning_dropped)();
                session.notice(hailer_protocol::NoticeLevel::Warning, text);
                return;
            }
            TurnEvent::Started { text, .. } => SessionEvent::TurnStarted {
                turn_id,
                text,
                client: self.client.clone(),
            },
            TurnEvent::TextDelta { text } => SessionEvent::TextDelta {
                turn_id,
                delta: text,
            },
            TurnEvent::ToolCallStarted {
                call_id,
                name,
                argument_preview,
                code,
            } => SessionEvent::ToolCallStarted {
                turn_id,
                call_id,
                name,
                preview: argument_preview,
                code,
                client: None,
            },
            TurnEvent::ToolCallFinished {
                call_id,
                name,
                ok,
                result_preview,
                output,
            } => SessionEvent::ToolCallFinished {
                turn_id,
                call_id,
                name,
                ok,
                preview: result_preview,
                output,
            },
            TurnEvent::Usage { input, output } => SessionEvent::Usage {
                turn_id,
                usage: TurnUsage {
                    input_tokens: Some(input),
                    output_tokens: Some(output),
                },
            },
            TurnEvent::Finished { text, usage } => SessionEvent::TurnFinished {
                turn_id,
                text,
                usage: TurnUsage {
                    input_tokens: usage.map(|u| u.input),
                    output_tokens: usage.map(|u| u.output),
                },
            },
            TurnEvent::Failed { message, hint } => SessionEvent::TurnFailed {
                turn_id,
                message,
                hint: (!hint.is_empty()).then_some(hint),
            },
            TurnEvent::Cancelled => SessionEvent::TurnCancelled { turn_id },
        };
        let first = matches!(published, SessionEvent::TurnStarted { .. });
        let last = matches!(
            published,
            SessionEvent::TurnFinished { .. }
                | SessionEvent::TurnFailed { .. }
                | SessionEvent::TurnCancelled { .. }
        );
        if last {
            if let Ok(mut held) = self.last.lock() {
                *held = Some(published);
            }
            return;
        }
        session.publish_turn_event(published);
        if first
            && let Ok(mut started) = self.started.lock()
            && let Some(sender) = started.take()
        {
            let _ = sender.send(self.turn_id());
        }
    }
}
