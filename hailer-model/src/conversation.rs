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
    pub fn user(text: impl Into<String>) -> Self {
        Self::User(text.into())
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self::Assistant(AssistantMessage {
            text: text.into(),
            tool_calls,
        })
    }

    pub fn tool_result(call_id: impl Into<String>, output: impl Into<String>) -> Self {
        Self::ToolResult(ToolResult {
            call_id: call_id.into(),
            output: output.into(),
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssistantMessage {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
}

/// A tool call the model made. `arguments` is the JSON text exactly as the model wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub call_id: String,
    pub name: String,
    pub arguments: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    pub call_id: String,
    pub output: String,
}

/// A function tool offered to the model (plain, non-strict).
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the arguments object.
    pub parameters: Value,
}

/// How hard a reasoning model should think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReasoningEffort {
    Minimal,
    Low,
    Medium,
    High,
    XHigh,
}

impl ReasoningEffort {
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
    pub items: Vec<Item>,
    pub tools: Vec<ToolSpec>,
    /// Sent only when set.
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// Token counts the endpoint reported for one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
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
