use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/sessions/{id}/turns`: ask the agent something. `Debug` hides `env`'s values.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartTurnParams {
    /// The user's message. It may be blank when `skill` or `prompt` is given; a turn takes one
    /// of those at most. The schema's object-level `allOf` says both.
    #[serde(default)]
    pub text: String,
    /// Who sent it (`terminal`, `browser`, `api`), shown to the other clients.
    #[serde(default)]
    pub client: String,
    /// `/skill <name> [message]`: the skill's `SKILL.md` goes into the turn's message, before
    /// its `message` (or, when that is empty, `text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<SkillRequest>,
    /// `/prompt <name> [args]`: the prompt template, with `{{args}}` replaced, is the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptRequest>,
    /// Answer when the turn ends, with its [`TurnResult`], instead of as soon as it begins.
    /// A request sent with `Accept: text/event-stream` gets the turn's events as server-sent
    /// events instead, whatever this says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wait: bool,
    /// The sending client's provider key and header variables: the turn uses these, and the
    /// session keeps each one for later turns. A variable left out keeps the value the session
    /// last received (the page sends none).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
}

impl std::fmt::Debug for StartTurnParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartTurnParams")
            .field("text", &self.text)
            .field("client", &self.client)
            .field("skill", &self.skill)
            .field("prompt", &self.prompt)
            .field("wait", &self.wait)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// A skill attached to a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillRequest {
    /// The skill's name or folder, in any case.
    #[schema(min_length = 1)]
    pub name: String,
    /// The user's message that follows the skill; when blank, the turn's `text` is used.
    #[serde(default)]
    pub message: String,
}

/// A prompt template sent as a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptRequest {
    /// The template's file name without `.md`.
    #[schema(min_length = 1)]
    pub name: String,
    /// The text put in place of `{{args}}`; when blank, the turn's `text` is used.
    #[serde(default)]
    pub args: String,
}

/// `GET /v1/sessions/{id}/skills`: the workspace's skills, for completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillList {
    /// Every skill of the skills folder, sorted by name; empty when the folder is missing.
    pub skills: Vec<SkillEntry>,
}

/// One skill of the workspace: a folder under the skills folder holding a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillEntry {
    /// The name from the `SKILL.md` front matter, else the folder's name.
    pub name: String,
    /// The folder under the skills folder.
    pub folder: String,
    /// Empty when the front matter has none.
    pub description: String,
}

/// `GET /v1/sessions/{id}/prompts`: the workspace's prompt templates, for completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptList {
    /// The templates' file names without `.md`, sorted; a `README.md` is left out.
    pub prompts: Vec<String>,
}

/// The turn was accepted; its events follow on the session's stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartTurnResponse {
    /// The turn's id (16 hex digits), as the session's events for this turn carry it.
    pub turn_id: String,
    /// How the turn ended, when the request asked to `wait`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<TurnResult>,
}

/// A whole turn, as `"wait": true` answers it: the answer, the tool calls, the charts, the
/// notebook and the tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    /// How the turn ended.
    pub outcome: TurnOutcome,
    /// The answer's text; empty unless the outcome is `finished`.
    pub answer: String,
    /// What went wrong, when the outcome is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<TurnError>,
    /// The tool calls the agent made, in the order they started.
    pub tool_calls: Vec<TurnToolCall>,
    /// The charts the turn's code made, with their pictures when the kernel drew them.
    pub charts: Vec<crate::Chart>,
    /// The session's active notebook when the turn ended, as a path on this machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    /// The turn's token counts.
    pub usage: TurnUsage,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum TurnOutcome {
    /// The agent answered.
    Finished,
    /// The turn failed; `error` says why.
    Failed,
    /// A client cancelled it.
    Cancelled,
}

/// Why a turn failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnError {
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it, when there is something to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// One tool call of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnToolCall {
    /// The id the model gave the call.
    pub id: String,
    /// The tool's name (`marimo_execute`, `notebook_list`, ...).
    pub name: String,
    /// The code the call ran, when it ran code (capped at 64,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// `true` when the call succeeded, `false` when it failed or was interrupted; absent
    /// when the turn ended before the call did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// The start of the result (at most 200 characters).
    pub summary: String,
    /// The result for review (at most 8,000 characters).
    pub result: String,
}

/// `POST /v1/sessions/{id}/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelResponse {
    /// False when no turn was running.
    pub cancelled: bool,
}

/// Token counts of a turn; `None` when the endpoint reported none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TurnUsage {
    /// Tokens the model read (instructions, history, tool results), summed over the turn's
    /// model calls so far.
    pub input_tokens: Option<u64>,
    /// Tokens the model wrote, summed over the turn's model calls so far.
    pub output_tokens: Option<u64>,
}
