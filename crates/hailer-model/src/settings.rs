//! Where and how to reach a model: one provider's settings, already resolved (the daemon maps
//! `hailer.toml`, the environment and the credential store into them).

use std::collections::BTreeMap;
use std::fmt;

use secrecy::SecretString;

/// The wire API an endpoint speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireApi {
    /// `POST {base_url}/responses`
    Responses,
    /// `POST {base_url}/chat/completions`
    Chat,
}

impl WireApi {
    /// The path appended to the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Self::Responses => "responses",
            Self::Chat => "chat/completions",
        }
    }

    /// The value of `wire_api` in `hailer.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Responses => "responses",
            Self::Chat => "chat",
        }
    }

    /// The wire API this one is not, suggested when an endpoint answers 404 or 405.
    pub fn other(self) -> Self {
        match self {
            Self::Responses => Self::Chat,
            Self::Chat => Self::Responses,
        }
    }
}

impl fmt::Display for WireApi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One provider's resolved settings. The key and the values of `env_http_headers` are secrets:
/// `Debug` never shows them.
#[derive(Clone, Debug)]
pub struct ProviderSettings {
    /// The provider's id in `hailer.toml` (e.g. `openai`), used in messages.
    pub provider_id: String,
    /// E.g. `https://api.openai.com/v1`; the wire API's path is appended.
    pub base_url: String,
    /// Which API the endpoint speaks; picks the path, the request body and the reply parser.
    pub wire_api: WireApi,
    /// Whether to ask for a streamed (SSE) reply, through the body's `stream` and the `Accept`
    /// header. A reply is read by its `Content-Type` whatever was asked; this decides only when
    /// that header names neither SSE nor JSON.
    pub stream: bool,
    /// Ask for usage in streamed Chat replies (`stream_options.include_usage`) when `stream` is on.
    pub stream_options: bool,
    /// The model name sent with every request.
    pub model: String,
    /// The most tokens one answer may have; none is sent when `None`.
    pub max_output_tokens: Option<u32>,
    /// Extra headers sent with every request, name to value, as plain (not secret) text.
    pub http_headers: BTreeMap<String, String>,
    /// Headers whose values came from environment variables; only non-empty values are sent.
    pub env_http_headers: BTreeMap<String, SecretString>,
    /// Added to the URL of every request.
    pub query_params: BTreeMap<String, String>,
    /// Sent as `Authorization: Bearer`; none is sent when `None`.
    pub api_key: Option<SecretString>,
    /// The environment variable the key comes from (e.g. `OPENAI_API_KEY`), named in messages.
    pub env_key: Option<String>,
}

impl ProviderSettings {
    /// Settings with the product's defaults: streaming with usage, no extra headers or parameters.
    pub fn new(
        provider_id: impl Into<String>,
        base_url: impl Into<String>,
        wire_api: WireApi,
        model: impl Into<String>,
    ) -> Self {
        Self {
            provider_id: provider_id.into(),
            base_url: base_url.into(),
            wire_api,
            stream: true,
            stream_options: true,
            model: model.into(),
            max_output_tokens: None,
            http_headers: BTreeMap::new(),
            env_http_headers: BTreeMap::new(),
            query_params: BTreeMap::new(),
            api_key: None,
            env_key: None,
        }
    }

    /// Whether streamed Chat replies should carry usage.
    pub fn include_usage(&self) -> bool {
        self.stream && self.stream_options
    }
}
