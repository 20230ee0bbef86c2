//! A new conversation inside a running session: the same model with the stored conversation
//! deleted (`/new`), or another model in a thread of its own (`/model`), the earlier thread kept.

use hailer_agent::off_the_worker;
use std::collections::BTreeMap;
use std::sync::Arc;

use hailer_config::Config;
use hailer_protocol::{
    ConversationReason, ConversationStarted, NewConversationParams, SessionEvent,
};

use super::model_client::{self, Refusal};
use super::{Activity, Agent, InUse, Ready};
use hailerd_session::{Session, SessionError};

/// The longest model name (or `provider:name`) accepted; real names are far shorter.
pub(super) const MAX_MODEL_SPEC_CHARS: usize = 200;

/// A provider and a model name, checked against the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ModelChoice {
    pub provider: String,
    pub model: String,
}

/// Reads `name` or `provider:name`; a bare name keeps `current_provider`. The provider must be
/// declared in `config`.
pub(super) fn parse_model(
    spec: &str,
    current_provider: &str,
    config: &Config,
) -> Result<ModelChoice, SessionError> {
    // Taken as sent, as the schema says: the clients trim what a user typed.
    let usage = "Give the model as `name` or `provider:name`, or null to keep the model in use.";
    let refuse = |message: String| SessionError::Rejected {
        message,
        hint: Some(usage.to_owned()),
    };
    if spec.is_empty() {
        return Err(refuse("the model name is empty".to_owned()));
    }
    let length = spec.chars().count();
    if length > MAX_MODEL_SPEC_CHARS {
        return Err(refuse(format!(
            "the model name is {length} characters long; at most {MAX_MODEL_SPEC_CHARS} are accepted"
        )));
    }
    if spec.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(refuse(
            "the model name holds spaces or control characters".to_owned(),
        ));
    }
    let (provider, model) = match spec.split_once(':') {
        Some((provider, model)) => (provider, model),
        None => (current_provider, spec),
    };
    if provider.is_empty() {
        return Err(refuse("the provider before ':' is empty".to_owned()));
    }
    if model.is_empty() {
        return Err(refuse(format!("no model name after '{provider}:'")));
    }
    if !config.model_providers.contains_key(provider) {
        let declared: Vec<String> = config.model_providers.keys().cloned().collect();
        return Err(SessionError::Rejected {
            message: Refusal::not_declared_message(provider, &declared),
            hint: Some(Refusal::not_declared_hint(provider)),
        });
    }
    Ok(ModelChoice {
        provider: provider.to_owned(),
        model: model.to_owned(),
    })
}

/// Puts the agent back to idle when the switch ends, however it ends (a client that goes away
/// drops the request midway).
pub(super) struct Switching<'a>(pub(super) &'a Agent);

impl Drop for Switching<'_> {
    fn drop(&mut self) {
        self.0.end();
    }
}

impl Agent {
    /// Starts a new conversation: with `params.model` unset, the stored conversation is deleted
    /// and the same model goes on; with a model, that model answers from now on, in a new
    /// thread. Refused while a turn runs. Every attached client is told.
    pub async fn new_conversation(
        &self,
        session: &Arc<Session>,
        params: NewConversationParams,
    ) -> Result<ConversationStarted, SessionError> {
        let ready = self.ready()?;
        let current = ready
            .in_use()
            .ok_or_else(|| SessionError::Invalid("the agent is unusable".to_owned()))?;
        let choice = match params.model.as_deref() {
            Some(spec) => Some(parse_model(
                spec,
                &current.provider,
                &session.loaded().config,
            )?),
            None => None,
        };
        self.begin(Activity::Switching)?;
        let switching = Switching(self);
        let next = match choice {
            None => fresh_thread(ready, current).await?,
            Some(choice) => switched_model(session, ready, choice, current, params.env).await?,
        };
        let started = ConversationStarted {
            model: next.model.clone(),
            provider: next.provider.clone(),
            reason: if params.model.is_some() {
                ConversationReason::Model
            } else {
                ConversationReason::New
            },
        };
        session.set_history(super::history(&*ready.store.lock().await, &next.thread));
        if let Ok(mut in_use) = ready.in_use.lock() {
            *in_use = next;
        }
        drop(switching);
        session.forget_setup_notices();
        tracing::info!(
            session = %session.id,
            model = %started.model,
            provider = %started.provider,
            reason = ?started.reason,
            "new conversation"
        );
        session.events.publish(SessionEvent::ConversationStarted {
            model: started.model.clone(),
            provider: started.provider.clone(),
            reason: started.reason,
            client: if params.client.trim().is_empty() {
                "api".to_owned()
            } else {
                params.client
            },
        });
        Ok(started)
    }
}

/// The same model in a new thread; every stored thread is deleted.
async fn fresh_thread(ready: &Ready, current: InUse) -> Result<InUse, SessionError> {
    let mut store = ready.store.lock().await;
    let thread = off_the_worker(|| store.new_thread(&current.model, &current.provider))
        .map_err(SessionError::Store)?;
    Ok(InUse {
        thread: thread.id,
        ..current
    })
}

/// A client for the chosen model, with its key, and a thread of its own beside the others.
async fn switched_model(
    session: &Session,
    ready: &Ready,
    choice: ModelChoice,
    current: InUse,
    client_env: BTreeMap<String, String>,
) -> Result<InUse, SessionError> {
    let config = session.loaded().config.clone();
    // The asking client's key wins; one it lacks is the one the session keeps.
    session.remember_keys(&client_env);
    let client_env = session.client_env();
    let credentials_dir = ready.credentials_dir.clone();
    let (provider, model) = (choice.provider.clone(), choice.model.clone());
    let built = tokio::task::spawn_blocking(move || {
        model_client::build(&config, &provider, &model, &client_env, &credentials_dir)
    })
    .await
    .map_err(|error| SessionError::CredentialStore(format!("the key lookup failed: {error}")))?;
    let built = built.map_err(|refusal| match refusal {
        Refusal::NotDeclared { provider, declared } => {
            match session.loaded().trust.provider_refusal(&provider) {
                Some((message, hint)) => SessionError::Rejected {
                    message,
                    hint: Some(hint),
                },
                None => SessionError::Rejected {
                    message: Refusal::not_declared_message(&provider, &declared),
                    hint: Some(Refusal::not_declared_hint(&provider)),
                },
            }
        }
        Refusal::MissingKey(missing) => SessionError::Rejected {
            message: missing.message(),
            hint: Some(missing.hint()),
        },
        Refusal::Invalid(message) => SessionError::AgentUnavailable {
            message,
            hint: Some("Check the provider's section in hailer.toml.".to_owned()),
        },
    })?;
    if let Some((key, _)) = &built.key {
        session.redact_secret(key);
    }
    let mut store = ready.store.lock().await;
    let thread = off_the_worker(|| store.add_thread(&choice.model, &choice.provider))
        .map_err(SessionError::Store)?;
    drop(store);
    Ok(InUse {
        thread: thread.id,
        model: choice.model,
        provider: choice.provider,
        // The file still names the model it did: this choice holds until the file changes.
        configured: current.configured,
    })
}
