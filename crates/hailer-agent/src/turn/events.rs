//! What a turn tells its watchers as it happens.

use tokio::sync::mpsc;

use crate::usage::TokenUsage;

/// Characters of a tool call's arguments shown in [`TurnEvent::ToolCallStarted`].
pub(super) const ARGUMENT_PREVIEW_CHARS: usize = 80;
/// Characters of a tool result shown in [`TurnEvent::ToolCallFinished`].
pub(super) const RESULT_PREVIEW_CHARS: usize = 200;
/// Characters of a tool call's code carried in [`TurnEvent::ToolCallStarted`], for review.
pub(super) const CODE_CHARS: usize = 64_000;
/// Characters of a tool result carried in [`TurnEvent::ToolCallFinished`], for review.
pub(super) const OUTPUT_CHARS: usize = 8_000;

/// One event of a turn. Every turn starts with `Started` and ends with exactly one of
/// `Finished`, `Failed` or `Cancelled`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnEvent {
    /// The turn began with this user text.
    Started {
        /// A fresh id for the turn: 16 lower-case hex digits.
        turn_id: String,
        /// The user's message, as given to [`crate::Turn::run`].
        text: String,
    },
    /// A piece of the model's reply text, in order.
    TextDelta {
        /// The next piece of text, as the endpoint streamed it.
        text: String,
    },
    /// A tool call is about to run.
    ToolCallStarted {
        /// The id the model gave the call; the matching `ToolCallFinished` carries it too.
        call_id: String,
        /// The tool the model asked for, which may not exist.
        name: String,
        /// The call's arguments on one line, up to `ARGUMENT_PREVIEW_CHARS` characters.
        argument_preview: String,
        /// The code the call runs, in full up to `CODE_CHARS` (64,000 characters), when its arguments carry one.
        code: Option<String>,
    },
    /// A tool call ended; `ok` is false when its result reports an error or it was interrupted.
    ToolCallFinished {
        /// The id of the call, as in its `ToolCallStarted`.
        call_id: String,
        /// The tool's name, as the model wrote it.
        name: String,
        /// False when the result starts with `ERROR:` or the call was interrupted.
        ok: bool,
        /// The start of the result, up to `RESULT_PREVIEW_CHARS` characters.
        result_preview: String,
        /// The result, up to `OUTPUT_CHARS` (8,000 characters).
        output: String,
    },
    /// The turn's token usage so far, after a model call that reported usage.
    Usage {
        /// Input tokens over the turn's calls so far.
        input: u64,
        /// Output tokens over the turn's calls so far.
        output: u64,
    },
    /// The answer: the text of the last reply, which had no tool calls. `usage` is `None` when
    /// the endpoint reported none.
    Finished {
        /// The answer's text.
        text: String,
        /// Tokens over all the turn's model calls.
        usage: Option<TokenUsage>,
    },
    /// The turn could not go on; the conversation so far is kept.
    Failed {
        /// What went wrong, for the user.
        message: String,
        /// What the user can do next.
        hint: String,
    },
    /// The turn was cancelled; the conversation so far is kept and stays valid.
    Cancelled,
    /// The endpoint refused the default reasoning setting, which the user did not write: the
    /// call was made again without it, and the turn goes on without it. Sent at most once a
    /// turn.
    ReasoningDropped {
        /// What happened, for the user.
        text: String,
    },
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
    /// Hands one event over; it must not block, as the turn waits for it to return.
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
