//! What a turn tells its watchers as it happens.

use tokio::sync::mpsc;

use crate::usage::TokenUsage;

/// Characters of a tool call's arguments shown in [`TurnEvent::ToolCallStarted`].
pub const ARGUMENT_PREVIEW_CHARS: usize = 80;
/// Characters of a tool result shown in [`TurnEvent::ToolCallFinished`].
pub const RESULT_PREVIEW_CHARS: usize = 200;
/// Characters of a tool call's code carried in [`TurnEvent::ToolCallStarted`], for review.
pub(super) const CODE_CHARS: usize = 64_000;
/// Characters of a tool result carried in [`TurnEvent::ToolCallFinished`], for review.
pub(super) const OUTPUT_CHARS: usize = 8_000;

/// One event of a turn. Every turn starts with `Started` and ends with exactly one of
/// `Finished`, `Failed` or `Cancelled`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnEvent {
    /// The turn began with this user text.
    Started { turn_id: String, text: String },
    /// A piece of the model's reply text, in order.
    TextDelta { text: String },
    /// A tool call is about to run.
    ToolCallStarted {
        call_id: String,
        name: String,
        argument_preview: String,
        /// The code the call runs, in full up to [`CODE_CHARS`], when its arguments carry one.
        code: Option<String>,
    },
    /// A tool call ended; `ok` is false when its result reports an error or it was interrupted.
    ToolCallFinished {
        call_id: String,
        name: String,
        ok: bool,
        result_preview: String,
        /// The result, up to [`OUTPUT_CHARS`].
        output: String,
    },
    /// The turn's token usage so far, after a model call that reported usage.
    Usage { input: u64, output: u64 },
    /// The answer: the text of the last reply, which had no tool calls. `usage` is `None` when
    /// the endpoint reported none.
    Finished {
        text: String,
        usage: Option<TokenUsage>,
    },
    /// The turn could not go on; the conversation so far is kept.
    Failed { message: String, hint: String },
    /// The turn was cancelled; the conversation so far is kept and stays valid.
    Cancelled,
}

impl TurnEvent {
    /// Whether this event ends a turn.
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Self::Finished { .. } | Self::Failed { .. } | Self::Cancelled
        )
    }
}

/// Where a turn's events go: a closure, or a channel.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: TurnEvent);
}

impl<F: Fn(TurnEvent) + Send + Sync> EventSink for F {
    fn emit(&self, event: TurnEvent) {
        self(event);
    }
}

impl EventSink for mpsc::UnboundedSender<TurnEvent> {
    fn emit(&self, event: TurnEvent) {
        // Nobody listening is not the turn's problem.
        let _ = self.send(event);
    }
}
