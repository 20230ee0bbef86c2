//! `/v1/credentials/...`: keeping a provider's API key in the OS credential store or the key file.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/credentials/login`: keep `key` for a provider of the workspace's configuration.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoginParams {
    /// Which workspace's configuration names the provider, as the client sees it.
    pub target: CredentialTarget,
    /// The API key. Kept by the daemon in the store only; never logged or echoed.
    pub key: String,
}

impl std::fmt::Debug for LoginParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginParams")
            .field("target", &self.target)
            .field("key", &"<redacted>")
            .finish()
    }
}

/// The provider whose key is meant, and the workspace whose configuration declares it; the
/// body of `POST /v1/credentials/logout`, which forgets that provider's stored key.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialTarget {
    /// The client's working folder, as an absolute path; the workspace is found from it.
    #[cfg_attr(not(windows), schema(pattern = "^/"))]
    #[cfg_attr(windows, schema(pattern = r"^([A-Za-z]:[\\/]|\\\\)"))]
    pub cwd: String,
    /// `--workspace`.
    #[serde(default)]
    pub workspace: Option<String>,
    /// `--config`.
    #[serde(default)]
    pub config: Option<String>,
    /// The provider id (default: the provider of the configured model).
    #[serde(default)]
    pub provider: Option<String>,
    /// The client's `HAILER_*` variables, which can change the configuration.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl std::fmt::Debug for CredentialTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialTarget")
            .field("cwd", &self.cwd)
            .field("workspace", &self.workspace)
            .field("config", &self.config)
            .field("provider", &self.provider)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// What a login or logout did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CredentialsResponse {
    /// Id of the provider whose key was stored or removed, as the configuration declares it.
    pub provider: String,
    /// The variable that, set in a client's environment, wins over the stored key.
    pub env_key: String,
    /// Where the key is kept now (`keyring` or `file`); `None` after a logout.
    pub stored_in: Option<String>,
    /// For a logout: whether a stored key was there to remove.
    pub removed: bool,
}

/// `POST /v1/credentials/check` answers a [`crate::StartSessionParams`], the values a session
/// start from the asking shell would send, with the judgement that session would make: the
/// provider and model, where the key comes from when one was found, and otherwise why the agent
/// could not answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelCheck {
    /// Id of the provider the workspace's configuration chooses.
    pub provider: String,
    /// Name of the configured model, without the provider.
    pub model: String,
    /// Where the key comes from, in words (`OPENAI_API_KEY from the environment`), or why none
    /// is needed; absent when there is a problem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
    /// Why a session's agent could not answer (no key, an unknown provider, ...) and what to
    /// do; absent when the model can be reached. Exactly one of `credentials` and `problem` is
    /// set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<crate::AgentProblem>,
}
