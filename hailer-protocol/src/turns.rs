use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/sessions/{id}/turns`: ask the agent something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartTurnParams {
    pub text: String,
    /// Who sent it (`terminal`, `browser`, `api`), shown to the other clients.
    #[serde(default)]
    pub client: String,
}

/// The turn was accepted; its events follow on the session's stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartTurnResponse {
    pub turn_id: String,
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
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
}
