//! The conversation so far, as a client that attaches is sent it before the live events.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One exchange of the conversation: what the user wrote, the tool calls made for it, the
/// answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PastTurn {
    /// What the user wrote, as the model received it (with a skill or prompt template already
    /// expanded).
    pub text: String,
    /// The tool calls the agent made for this turn, in the order it made them.
    #[serde(default)]
    pub tools: Vec<PastToolCall>,
    /// Empty when the turn gave no answer (it failed or was cancelled).
    #[serde(default)]
    pub answer: String,
    /// The charts its tool calls made, as live clients were sent them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<crate::Chart>,
}

/// A tool call of a past turn, previewed as live clients are shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PastToolCall {
    /// The id the model gave the call (live events carry it as `call_id`).
    #[serde(default)]
    pub call_id: String,
    /// The tool's name (`marimo_execute`, `notebook_list`, ...).
    pub name: String,
    /// Its arguments (the code), on one line, capped.
    pub preview: String,
    /// The code it ran, when it ran code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Unset when no result was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// The start of its result.
    #[serde(default)]
    pub result: String,
    /// Its result for review, capped as the live event's.
    #[serde(default)]
    pub output: String,
}
