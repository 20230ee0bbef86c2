//! What a model call produces, in order, and the bookkeeping that assembles the final reply.

use crate::conversation::{ToolCall, Usage};

/// One event of a model reply, delivered as it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelEvent {
    /// A piece of the reply's text.
    TextDelta(String),
    /// The model began a tool call; its arguments are still arriving.
    /// Sent once per call, before its [`ModelEvent::ToolCallDone`].
    ToolCallStarted {
        /// The call's id, the same as in the later `ToolCallDone` ([`ToolCall::call_id`]).
        call_id: String,
        /// The name of the tool being called.
        name: String,
    },
    /// A tool call is complete.
    ToolCallDone {
        /// The call's id, to be repeated by its tool result ([`ToolCall::call_id`]).
        call_id: String,
        /// The name of the tool called.
        name: String,
        /// The arguments object as the JSON text the model wrote, not checked.
        arguments: String,
    },
    /// Token usage, when the endpoint reports it.
    Usage(Usage),
    /// The reply is complete; always the last event of a successful call.
    Completed(Completion),
}

/// A complete model reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// The whole text of the answer, every [`ModelEvent::TextDelta`] joined; may be empty.
    pub text: String,
    /// Every finished tool call, in the order the endpoint completed them.
    pub tool_calls: Vec<ToolCall>,
    /// `None` when the endpoint reported none: unknown, not zero.
    pub usage: Option<Usage>,
}

/// Collects a reply from wire events and emits the matching [`ModelEvent`]s.
#[derive(Debug, Default)]
pub(crate) struct ReplyBuilder {
    reply: Completion,
    started: Vec<String>,
}

impl ReplyBuilder {
    pub(crate) fn text(&self) -> &str {
        &self.reply.text
    }

    pub(crate) fn has_tool_call(&self, call_id: &str) -> bool {
        self.reply
            .tool_calls
            .iter()
            .any(|call| call.call_id == call_id)
    }

    pub(crate) fn text_delta(&mut self, delta: &str, out: &mut Vec<ModelEvent>) {
        if delta.is_empty() {
            return;
        }
        self.reply.text.push_str(delta);
        out.push(ModelEvent::TextDelta(delta.to_owned()));
    }

    pub(crate) fn tool_started(&mut self, call_id: &str, name: &str, out: &mut Vec<ModelEvent>) {
        if self.started.iter().any(|started| started == call_id) {
            return;
        }
        self.started.push(call_id.to_owned());
        out.push(ModelEvent::ToolCallStarted {
            call_id: call_id.to_owned(),
            name: name.to_owned(),
        });
    }

    pub(crate) fn tool_done(&mut self, call: ToolCall, out: &mut Vec<ModelEvent>) {
        if self.has_tool_call(&call.call_id) {
            return;
        }
        self.tool_started(&call.call_id, &call.name, out);
        out.push(ModelEvent::ToolCallDone {
            call_id: call.call_id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        self.reply.tool_calls.push(call);
    }

    pub(crate) fn usage(&mut self, usage: Usage, out: &mut Vec<ModelEvent>) {
        self.reply.usage = Some(usage);
        out.push(ModelEvent::Usage(usage));
    }

    pub(crate) fn complete(&mut self, out: &mut Vec<ModelEvent>) {
        out.push(ModelEvent::Completed(std::mem::take(&mut self.reply)));
    }
}
