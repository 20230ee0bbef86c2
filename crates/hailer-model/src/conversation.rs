//! The conversation as Hailer sees it, independent of any wire format.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

/// One entry of the conversation history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// What the user wrote (with any notices Hailer prefixed).
    User(String),
    /// What the model answered: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The output of one tool call, sent back to the model.
    ToolResult(ToolResult),
}

impl Item {
    /// A user message with this text.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User(text.into())
    }

    /// A model answer with this text (empty when the model only called tools) and these calls.
    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant(AssistantMessage {
            text: text.into(),
            tool_calls,
        })
    }

    /// The output of the tool call whose [`ToolCall::call_id`] is `call_id`.
    pub fn tool_result(call_id: impl Into<String>, output: impl Into<String>) -> Self {
        Self::ToolResult(ToolResult {
            call_id: call_id.into(),
            output: output.into(),
        })
    }
}

/// One answer of the model as kept in the history and sent back with later requests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssistantMessage {
    /// The answer's text; empty when the model only called tools (Chat then sends
    /// `content: null`, Responses sends no assistant message).
    pub text: String,
    /// The tool calls the answer made, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
}

/// A tool call the model made. `arguments` is the JSON text exactly as the model wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    /// The id the endpoint gave the call (`call_id` on Responses, `id` on Chat), which the
    /// matching [`ToolResult`] must repeat; `call_<index>` when a Chat endpoint sent none.
    pub call_id: String,
    /// The name of the tool called, one of the [`ToolSpec::name`]s offered (not checked here).
    pub name: String,
    /// The arguments object as JSON text, possibly invalid or empty; parsing is the caller's job.
    pub arguments: String,
}

/// What one tool call produced, sent back to the model in the next request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The [`ToolCall::call_id`] of the call this answers.
    pub call_id: String,
    /// The tool's output as the model will read it, sent as is.
    pub output: String,
}

/// A function tool offered to the model (plain, non-strict).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The function name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it, for the model to read.
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// How hard a reasoning model should think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReasoningEffort {
    /// The least effort; sent as `minimal`.
    Minimal,
    /// Sent as `low`: more than `minimal`, less than `medium`.
    Low,
    /// Sent as `medium`, the middle value.
    Medium,
    /// Sent as `high`: more than `medium`, less than `xhigh`.
    High,
    /// The most effort; sent as `xhigh`.
    XHigh,
}

impl ReasoningEffort {
    /// Every effort, from least to most; the values [`FromStr`] accepts.
    pub const ALL: [Self; 5] = [
        Self::Minimal,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::XHigh,
    ];

    /// The value both wire APIs use.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::XHigh => "xhigh",
        }
    }
}

impl fmt::Display for ReasoningEffort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A reasoning effort that is not one of the known values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{0}' is not a reasoning effort: use one of minimal, low, medium, high, xhigh, or \"\" to send none"
)]
pub struct UnknownReasoningEffort(pub String);

impl FromStr for ReasoningEffort {
    type Err = UnknownReasoningEffort;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|effort| effort.as_str() == wanted)
            .ok_or_else(|| UnknownReasoningEffort(text.to_owned()))
    }
}

/// Everything one model call needs besides the provider settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelRequest {
    /// The system prompt; sent as one system message, never stored in the history.
    pub instructions: String,
    /// The conversation so far, oldest first, ending with what the model should answer next
    /// (a user message or tool results).
    pub items: Vec<Item>,
    /// The tools the model may call; none are sent when empty.
    pub tools: Vec<ToolSpec>,
    /// Sent only when set (`reasoning.effort` on Responses, `reasoning_effort` on Chat).
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// Token counts the endpoint reported for one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the request (`input_tokens` on Responses, `prompt_tokens` on Chat).
    pub input: u64,
    /// Tokens of the answer (`output_tokens` on Responses, `completion_tokens` on Chat).
    pub output: u64,
    /// The endpoint's own `total_tokens`; `None` when it sent none (it is not computed here).
    pub total: Option<u64>,
}

impl Usage {
    /// Reads `{input,output,total}` counts under the given field names; `None` when the endpoint
    /// reported no usable counts.
    pub(crate) fn from_json(value: &Value, input: &str, output: &str) -> Option<Self> {
        let count = |key: &str| value.get(key).and_then(Value::as_u64);
        Some(Self {
            input: count(input)?,
            output: count(output)?,
            total: count("total_tokens"),
        })
    }
}
