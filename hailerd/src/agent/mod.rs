//! The session's agent: the model client, the conversation store, the tools and the running
//! turn, with its events broadcast to every attached client.

mod conversation;
mod demo_model;
pub mod login;
mod model_client;
mod prompt;
mod prompt_context;
mod sink;
mod tools;
mod tools_cells;
mod tools_notebook;
mod tools_workspace;

pub use prompt_context::turn_message;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use hailer_agent::{ConversationStore, Resumption, ToolRegistry, Turn, TurnSettings};
use hailer_config::Loaded;
use hailer_model::ModelClient;
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
    activity: std::sync::Mutex<Activity>,
    turns_started: std::sync::atomic::AtomicU64,
}

/// What the agent is doing: one thing at a time.
enum Activity {
    Idle,
    /// A turn runs; cancelling it cancels this. The number tells turns apart.
    Turn(u64, CancellationToken),
    /// A new conversation is being set up.
    Switching,
}

struct Ready {
    /// The model and thread turns use now; a new conversation replaces them.
    in_use: std::sync::Mutex<InUse>,
    store: Mutex<ConversationStore>,
    tools: ToolRegistry,
    settings: TurnSettings,
    instructions: String,
    /// Where `hailer login` keeps keys in a file, for a model switch.
    credentials_dir: PathBuf,
}

/// The model that answers and the thread its turns go to.
#[derive(Clone)]
struct InUse {
    client: ModelClient,
    thread: String,
    model: String,
    provider: String,
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
                    activity: std::sync::Mutex::new(Activity::Idle),
                    turns_started: std::sync::atomic::AtomicU64::new(0),
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
                    activity: std::sync::Mutex::new(Activity::Idle),
                    turns_started: std::sync::atomic::AtomicU64::new(0),
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
        let ready = self.ready()?;
        if text.trim().is_empty() {
            return Err(SessionError::Invalid("the message is empty".to_owned()));
        }
        let cancel = CancellationToken::new();
        let number = self
            .turns_started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.begin(Activity::Turn(number, cancel.clone()))?;
        let in_use = ready.in_use();
        let instructions = prompt_context::instructions_for_turn(&ready.instructions, session);
        // The agent is free again before the turn's last event goes out, so a client that
        // acts on that event is not refused as busy.
        let ending = Arc::downgrade(self);
        let on_end = Box::new(move || {
            if let Some(agent) = ending.upgrade() {
                agent.end_turn(number);
            }
        });
        let (sink, started) = sink::SessionSink::new(Arc::downgrade(session), client, on_end);
        let agent = Arc::clone(self);
        let busy_session = Arc::clone(session);
        tokio::spawn(async move {
            let _busy = busy_session.busy();
            if let (Ok(ready), Some(in_use)) = (agent.ready.as_ref(), in_use) {
                let mut store = ready.store.lock().await;
                Turn {
                    client: &in_use.client,
                    instructions: &instructions,
                    store: &mut store,
                    thread: &in_use.thread,
                    tools: &ready.tools,
                    settings: &ready.settings,
                    events: &sink,
                    cancel: &cancel,
                }
                .run(&text)
                .await;
                // The copy back is part of the turn for the client that asked: its notebook
                // is on this machine when the turn's last event reaches it.
                busy_session.copy_back_notebooks().await;
                sink.release();
                drop(store);
            }
            agent.end_turn(number);
        });
        started
            .await
            .map_err(|_| SessionError::Invalid("the turn ended before it began".to_owned()))
    }

    /// Cancels the running turn; false when none runs.
    pub fn cancel(&self) -> bool {
        let running = self
            .activity
            .lock()
            .ok()
            .and_then(|activity| match &*activity {
                Activity::Turn(_, cancel) => Some(cancel.clone()),
                Activity::Idle | Activity::Switching => None,
            });
        match running {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// The model in use, as `provider:name`; `None` when the agent cannot answer.
    pub fn model_label(&self) -> Option<String> {
        let in_use = self.ready.as_ref().ok()?.in_use()?;
        Some(format!("{}:{}", in_use.provider, in_use.model))
    }

    fn ready(&self) -> Result<&Ready, SessionError> {
        self.ready
            .as_ref()
            .map_err(|unavailable| SessionError::AgentUnavailable {
                message: unavailable.message.clone(),
                hint: unavailable.hint.clone(),
            })
    }

    /// Starts `activity`, or answers `Busy` while another one runs.
    fn begin(&self, activity: Activity) -> Result<(), SessionError> {
        let mut current = self
            .activity
            .lock()
            .map_err(|_| SessionError::Invalid("the agent is unusable".to_owned()))?;
        if !matches!(*current, Activity::Idle) {
            return Err(SessionError::Busy);
        }
        *current = activity;
        Ok(())
    }

    fn end(&self) {
        if let Ok(mut current) = self.activity.lock() {
            *current = Activity::Idle;
        }
    }

    /// Turn `number` is over; a later activity is left alone.
    fn end_turn(&self, number: u64) {
        if let Ok(mut current) = self.activity.lock()
            && matches!(*current, Activity::Turn(running, _) if running == number)
        {
            *current = Activity::Idle;
        }
    }
}

impl Ready {
    fn in_use(&self) -> Option<InUse> {
        self.in_use.lock().ok().map(|in_use| in_use.clone())
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
    let credentials_dir = login::credentials_dir(config_dir);
    let (client, key) = model_client::build(
        &loaded.config,
        &model.provider,
        &model.name,
        client_env,
        &credentials_dir,
    )
    .map_err(|refusal| match refusal {
        model_client::Refusal::NotDeclared { provider, .. } => Unavailable {
            message: format!("the provider '{provider}' is not declared"),
            hint: Some(format!(
                "Add a [model_providers.{provider}] section to hailer.toml."
            )),
        },
        model_client::Refusal::MissingKey(missing) => Unavailable {
            message: missing.to_string(),
            hint: None,
        },
        model_client::Refusal::Invalid(message) => Unavailable {
            message,
            hint: None,
        },
    })?;
    if let Some(key) = &key {
        session.redact_secret(key);
    }
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
            tools_workspace::register(&mut tools, &loaded.config, &session.audit)?;
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
            in_use: std::sync::Mutex::new(InUse {
                client,
                thread,
                model: model.name.clone(),
                provider: model.provider.clone(),
            }),
            store: Mutex::new(store),
            tools,
            settings,
            instructions: prompt::system_prompt(loaded),
            credentials_dir,
        },
        notice,
    ))
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
