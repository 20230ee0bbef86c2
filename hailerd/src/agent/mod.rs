//! The session's agent: the model client, the conversation store, the tools and the running
//! turn, with its events broadcast to every attached client.

mod demo_model;
pub mod login;
mod prompt;
mod prompt_context;
mod sink;
mod tools;
mod tools_cells;
mod tools_notebook;
mod tools_workspace;

pub use prompt_context::turn_message;

use std::path::Path;
use std::sync::{Arc, Weak};

use hailer_agent::{ConversationStore, Credentials, Resumption, ToolRegistry, Turn, TurnSettings};
use hailer_config::Loaded;
use hailer_model::{ClientOptions, ModelClient, ProviderSettings, WireApi};
use secrecy::SecretString;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::session::{Session, SessionError};

/// Why the agent cannot answer in this session, and what to do.
#[derive(Debug, Clone)]
pub struct Unavailable {
    pub message: String,
    pub hint: Option<String>,
}

pub struct Agent {
    ready: Result<Ready, Unavailable>,
    running: std::sync::Mutex<Option<CancellationToken>>,
}

struct Ready {
    client: ModelClient,
    store: Mutex<ConversationStore>,
    thread: String,
    tools: ToolRegistry,
    settings: TurnSettings,
    instructions: String,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("ready", &self.ready.is_ok())
            .finish_non_exhaustive()
    }
}

/// What the agent said when it was set up: a notice for the user, if any.
pub struct Setup {
    pub agent: Agent,
    pub notice: Option<String>,
}

impl Agent {
    /// Sets up the agent for `session`: the provider's key from the client's environment (or
    /// the credential store), the model client, and the conversation (resumed unless `new_thread`).
    pub fn set_up(
        session: &Arc<Session>,
        client_env: &std::collections::BTreeMap<String, String>,
        config_dir: &Path,
        new_thread: bool,
    ) -> Setup {
        match prepare(session, client_env, config_dir, new_thread) {
            Ok((ready, notice)) => Setup {
                agent: Self {
                    ready: Ok(ready),
                    running: std::sync::Mutex::new(None),
                },
                notice,
            },
            Err(unavailable) => Setup {
                notice: Some(format!(
                    "The agent is not available: {}",
                    unavailable.message
                )),
                agent: Self {
                    ready: Err(unavailable),
                    running: std::sync::Mutex::new(None),
                },
            },
        }
    }

    /// Starts a turn in the background; answers its id once it has begun.
    pub async fn start_turn(
        self: &Arc<Self>,
        session: &Arc<Session>,
        text: String,
        client: String,
    ) -> Result<String, SessionError> {
        let ready = self
            .ready
            .as_ref()
            .map_err(|unavailable| SessionError::AgentUnavailable {
                message: unavailable.message.clone(),
                hint: unavailable.hint.clone(),
            })?;
        if text.trim().is_empty() {
            return Err(SessionError::Invalid("the message is empty".to_owned()));
        }
        let cancel = CancellationToken::new();
        {
            let mut running = self
                .running
                .lock()
                .map_err(|_| SessionError::Invalid("the agent is unusable".to_owned()))?;
            if running.is_some() {
                return Err(SessionError::Busy);
            }
            *running = Some(cancel.clone());
        }
        let instructions = prompt_context::instructions_for_turn(&ready.instructions, session);
        let (sink, started) = sink::SessionSink::new(Arc::downgrade(session), client);
        let agent = Arc::clone(self);
        let busy_session = Arc::clone(session);
        tokio::spawn(async move {
            let _busy = busy_session.busy();
            if let Ok(ready) = agent.ready.as_ref() {
                let mut store = ready.store.lock().await;
                Turn {
                    client: &ready.client,
                    instructions: &instructions,
                    store: &mut store,
                    thread: &ready.thread,
                    tools: &ready.tools,
                    settings: &ready.settings,
                    events: &sink,
                    cancel: &cancel,
                }
                .run(&text)
                .await;
            }
            if let Ok(mut running) = agent.running.lock() {
                *running = None;
            }
            sink.finish();
            busy_session.copy_back_notebooks().await;
        });
        started
            .await
            .map_err(|_| SessionError::Invalid("the turn ended before it began".to_owned()))
    }

    /// Cancels the running turn; false when none runs.
    pub fn cancel(&self) -> bool {
        match self.running.lock().ok().and_then(|running| running.clone()) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }
}

fn prepare(
    session: &Arc<Session>,
    client_env: &std::collections::BTreeMap<String, String>,
    config_dir: &Path,
    new_thread: bool,
) -> Result<(Ready, Option<String>), Unavailable> {
    let loaded: &Loaded = &session.loaded;
    let model = &loaded.config.model;
    let provider = loaded
        .config
        .model_providers
        .get(&model.provider)
        .ok_or_else(|| Unavailable {
            message: format!("the provider '{}' is not declared", model.provider),
            hint: Some(format!(
                "Add a [model_providers.{}] section to hailer.toml.",
                model.provider
            )),
        })?;
    let client = model_client(session, provider, client_env, config_dir)?;
    let store_error = |error: hailer_agent::Error| Unavailable {
        message: format!("the conversation store cannot be used: {error}"),
        hint: Some("Check that .hailer/threads.sqlite is readable, or move it away.".to_owned()),
    };
    let mut store =
        ConversationStore::open_in_workspace(session.workspace()).map_err(store_error)?;
    let (thread, notice) = if new_thread {
        let thread = store
            .new_thread(&model.name, &model.provider)
            .map_err(store_error)?;
        (thread.id, Some("New conversation started.".to_owned()))
    } else {
        match store
            .resume_or_start(&model.name, &model.provider)
            .map_err(store_error)?
        {
            Resumption::Resumed { thread, turns } => (
                thread.id,
                Some(format!(
                    "Resumed the conversation ({turns} turns so far); /new starts a fresh one."
                )),
            ),
            Resumption::Started { thread } => (thread.id, None),
            Resumption::ModelChanged { thread, .. } => (
                thread.id,
                Some("The model changed, so a new conversation started.".to_owned()),
            ),
        }
    };
    let max_tool_output_chars =
        usize::try_from(loaded.config.hailer.max_tool_output_chars).unwrap_or(usize::MAX);
    let tools = kernel_tools(Arc::downgrade(session), max_tool_output_chars)
        .and_then(|mut tools| {
            tools_workspace::register(&mut tools, &loaded.config)?;
            Ok(tools)
        })
        .map_err(|duplicate| Unavailable {
            message: format!("two tools share the name {}", duplicate.0),
            hint: None,
        })?;
    let settings = TurnSettings {
        max_tool_output_chars,
        reasoning_effort: model
            .reasoning_effort
            .and_then(|effort| effort.to_string().parse().ok()),
        summariser: hailer_agent::Summariser {
            after_tokens: model.summarize_after_tokens,
            ..Default::default()
        },
        ..Default::default()
    };
    Ok((
        Ready {
            client,
            store: Mutex::new(store),
            thread,
            tools,
            settings,
            instructions: prompt::system_prompt(loaded),
        },
        notice,
    ))
}

/// The model client of `provider`: the scripted demo model for `wire_api = "demo"` (no key),
/// else an endpoint client with the provider's key from the client's environment or the store.
fn model_client(
    session: &Arc<Session>,
    provider: &hailer_config::ProviderSettings,
    client_env: &std::collections::BTreeMap<String, String>,
    config_dir: &Path,
) -> Result<ModelClient, Unavailable> {
    let model = &session.loaded.config.model;
    let wire_api = match provider.wire_api {
        hailer_config::WireApi::Chat => WireApi::Chat,
        hailer_config::WireApi::Responses => WireApi::Responses,
        hailer_config::WireApi::Demo => {
            let settings = ProviderSettings::new(
                model.provider.clone(),
                provider.base_url.clone(),
                WireApi::Responses,
                model.name.clone(),
            );
            return Ok(ModelClient::local(
                settings,
                Arc::new(demo_model::DemoModel),
            ));
        }
    };
    let credentials = Credentials::new(model.credentials_store, login::credentials_dir(config_dir));
    let (key, _source) = credentials
        .resolve_key(&model.provider, &provider.env_key, client_env)
        .map_err(|missing| Unavailable {
            message: missing.to_string(),
            hint: None,
        })?;
    session.redact_secret(&key);
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
        provider_id: model.provider.clone(),
        base_url: provider.base_url.clone(),
        wire_api,
        stream: provider.stream,
        stream_options: provider.stream_options,
        model: model.name.clone(),
        http_headers: provider.http_headers.clone(),
        env_http_headers: env_headers,
        query_params: provider.query_params.clone(),
        api_key: Some(key),
        env_key: Some(provider.env_key.clone()),
    };
    ModelClient::new(settings, ClientOptions::default()).map_err(|error| Unavailable {
        message: error.to_string(),
        hint: None,
    })
}

/// The session's tools, in the order the model is offered them: the kernel, the cells, the
/// notebooks. The workspace tools (periods, skills, web pages) follow these.
fn kernel_tools(
    session: Weak<Session>,
    max_output_chars: usize,
) -> Result<ToolRegistry, hailer_agent::tool::DuplicateTool> {
    ToolRegistry::new()
        .with(tools::MarimoExecute {
            session: session.clone(),
            max_output_chars,
        })?
        .with(tools::MarimoStatus {
            session: session.clone(),
        })?
        .with(tools_cells::NotebookCells {
            session: session.clone(),
        })?
        .with(tools_cells::NotebookCheck {
            session: session.clone(),
        })?
        .with(tools_notebook::NotebookList {
            session: session.clone(),
        })?
        .with(tools_notebook::NotebookCreate {
            session: session.clone(),
        })?
        .with(tools_notebook::NotebookOpen {
            session: session.clone(),
        })?
        .with(tools_notebook::NotebookClose { session })
}
