//! The model client for one provider and model: the endpoint's settings from the workspace's
//! configuration, the key from the client's environment or where `hailer login` stored it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use hailer_agent::{Credentials, KeySource, MissingKey};
use hailer_config::Config;
use hailer_model::{ClientOptions, ModelClient, ProviderSettings, WireApi};
use secrecy::SecretString;

/// Why no client could be made.
#[derive(Debug)]
pub enum Refusal {
    /// The configuration declares no such provider.
    NotDeclared {
        provider: String,
        declared: Vec<String>,
    },
    /// No key for the provider, anywhere.
    MissingKey(MissingKey),
    /// The provider's settings are unusable (a bad base URL, say).
    Invalid(String),
}

impl Refusal {
    /// `no provider 'x' is declared in this workspace's configuration; declared: a, b`.
    pub fn not_declared_message(provider: &str, declared: &[String]) -> String {
        format!(
            "no provider '{provider}' is declared in this workspace's configuration; declared: {}",
            declared.join(", ")
        )
    }

    pub fn not_declared_hint(provider: &str) -> String {
        format!(
            "Use one of the declared providers, or add a [model_providers.{provider}] section to \
             hailer.toml."
        )
    }
}

/// A model client, and the key it sends with where that key came from.
pub(super) struct Built {
    pub client: ModelClient,
    /// The key (to be masked in the log) and its origin: none for the scripted demo model.
    pub key: Option<(SecretString, KeySource)>,
    /// The provider's key variable.
    pub env_key: String,
}

impl Built {
    /// Where the key comes from, in words, or why none is needed.
    pub(super) fn credentials_line(&self) -> String {
        match &self.key {
            None => "none needed: the scripted demo model runs inside hailerd and calls no \
                     endpoint"
                .to_owned(),
            Some((_, KeySource::Environment)) => format!("{} from the environment", self.env_key),
            Some((_, KeySource::Keyring)) => format!(
                "stored in the OS credential store (`hailer login`); {} in the environment \
                 would win",
                self.env_key
            ),
            Some((_, KeySource::File)) => format!(
                "stored in the key file (`hailer login`); {} in the environment would win",
                self.env_key
            ),
        }
    }
}

/// The client for `model` at `provider_id`, and the key it sends: none for the scripted demo
/// model (`wire_api = "demo"`), which runs inside the daemon. This is the one judgement of the
/// settings and the key: sessions, turns and `POST /v1/credentials/check` all ask it.
/// Reading a stored key may wait on the OS credential store: call from a blocking context.
pub(super) fn build(
    config: &Config,
    provider_id: &str,
    model: &str,
    client_env: &BTreeMap<String, String>,
    credentials_dir: &Path,
) -> Result<Built, Refusal> {
    let provider = config
        .model_providers
        .get(provider_id)
        .ok_or_else(|| Refusal::NotDeclared {
            provider: provider_id.to_owned(),
            declared: config.model_providers.keys().cloned().collect(),
        })?;
    let wire_api = match provider.wire_api {
        hailer_config::WireApi::Chat => WireApi::Chat,
        hailer_config::WireApi::Responses => WireApi::Responses,
        hailer_config::WireApi::Demo => {
            let settings = ProviderSettings::new(
                provider_id.to_owned(),
                provider.base_url.clone(),
                WireApi::Responses,
                model.to_owned(),
            );
            let client = ModelClient::local(settings, Arc::new(super::demo_model::DemoModel));
            return Ok(Built {
                client,
                key: None,
                env_key: provider.env_key.clone(),
            });
        }
    };
    let credentials = Credentials::new(config.model.credentials_store, credentials_dir);
    let (key, source) = credentials
        .resolve_key(provider_id, &provider.env_key, client_env)
        .map_err(Refusal::MissingKey)?;
    let env_headers = provider
        .env_http_headers
        .iter()
        .filter_map(|(header, variable)| {
            client_env
                .get(variable)
                .filter(|value| !value.is_empty())
                .map(|value| (header.clone(), SecretString::from(value.clone())))
        })
        .collect();
    let settings = ProviderSettings {
        max_output_tokens: provider.max_output_tokens,
        provider_id: provider_id.to_owned(),
        base_url: provider.base_url.clone(),
        wire_api,
        stream: provider.stream,
        stream_options: provider.stream_options,
        model: model.to_owned(),
        http_headers: provider.http_headers.clone(),
        env_http_headers: env_headers,
        query_params: provider.query_params.clone(),
        api_key: Some(key.clone()),
        env_key: Some(provider.env_key.clone()),
    };
    let client = ModelClient::new(settings, ClientOptions::default())
        .map_err(|error| Refusal::Invalid(error.to_string()))?;
    Ok(Built {
        client,
        key: Some((key, source)),
        env_key: provider.env_key.clone(),
    })
}
