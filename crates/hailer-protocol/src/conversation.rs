//! `/v1/sessions/{id}/conversation`: a new conversation inside a running session, with the same
//! model or another one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/sessions/{id}/conversation`. `Debug` hides `env`'s values.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewConversationParams {
    /// `null`: keep the model; the stored conversation is deleted and the counters start again.
    /// `name` or `provider:name`: use that model for the rest of the session (the provider must
    /// be declared in the workspace's configuration; a bare name keeps the provider in use) in a
    /// new conversation; the earlier one is kept. A name that is empty, longer than 200
    /// characters, or holds spaces or control characters is refused (400).
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = "^[^\\s\\x00-\\x1f\\x7f-\\x9f]+$"
    )]
    pub model: Option<String>,
    /// Who asks: `terminal`, `browser` or `api`, shown to the other clients.
    #[serde(default)]
    pub client: String,
    /// The client's values of the provider's key and header variables, as on session start.
    /// A model switch needs the key here unless `hailer login` stored it.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl std::fmt::Debug for NewConversationParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewConversationParams")
            .field("model", &self.model)
            .field("client", &self.client)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Why a new conversation started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ConversationReason {
    /// A fresh start with the same model.
    New,
    /// The model was switched.
    Model,
}

/// The conversation that started: the model that answers from now on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationStarted {
    /// The model's name.
    pub model: String,
    /// The provider's id.
    pub provider: String,
    /// Whether the conversation started afresh with the same model or because the model was
    /// switched.
    pub reason: ConversationReason,
}
