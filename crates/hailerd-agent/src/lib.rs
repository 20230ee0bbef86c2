//! The session's agent: the model client, the conversation store, the tools and the running
//! turn, with its events broadcast to every attached client.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod checks;
mod memory;

pub use login::{login, logout};
pub use memory::{freed, trim_after_bursts};
pub use model_check::check as check_model;

mod conversation;
mod demo_model;
mod login;
mod model_check;
mod model_client;
mod prompt;
mod prompt_context;
mod session_link;
mod sink;
mod tool_args;
mod tools;
mod tools_cells;
mod tools_charts;
mod tools_notebook;
mod tools_workspace;

pub use prompt_context::turn_message;
pub use session_link::{factory, of};
pub use tools::may_change_notebooks;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use hailer_agent::off_the_worker;
use hailer_agent::{ConversationStore, Resumption, ToolRegistry, Turn, TurnSettings};
use hailer_model::ModelClient;
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use hailerd_session::{Session, SessionError};

/// How long a stopping session waits for its cancelled turn to end.
const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why the agent cannot answer in this session, and what to do.
#[derive(Debug, Clone)]
pub struct Unavailable {
    /// What the user is told.
    pub message: String,
    /// What the user can do about it, when there is something.
    pub hint: Option<String>,
}

impl Unavailable {
    /// Why no model client could be made under `loaded`, and what to do.
    pub fn refused(refusal: model_client::Refusal, loaded: &hailer_config::Loaded) -> Self {
        match refusal {
            model_client::Refusal::NotDeclared { provider, .. } => {
                match loaded.trust.provider_refusal(&provider) {
                    Some((message, hint)) => Self {
                        message,
                        hint: Some(hint),
                    },
                    None => Self {
                        message: format!("the provider '{provider}' is not declared"),
                        hint: Some(format!(
                            "Add a [model_providers.{provider}] section to hailer.toml."
                        )),
                    },
                }
            }
            model_client::Refusal::MissingKey(missing) => Self {
                message: missing.message(),
                hint: Some(missing.hint()),
            },
            model_client::Refusal::Invalid(message) => Self {
                message,
                hint: Some("Check the provider's section in hailer.toml.".to_owned()),
            },
        }
    }
}

impl From<Unavailable> for SessionError {
    fn from(unavailable: Unavailable) -> Self {
        Self::AgentUnavailable {
            message: unavailable.message,
            hint: unavailable.hint,
        }
    }
}

/// A session's agent: its model client, conversation store, tools and the turn that runs.
pub struct Agent {
    ready: Result<Ready, Unavailable>,
    activity: std::sync::Mutex<Activity>,
    turns_started: std::sync::atomic::AtomicU64,
    /// Why the agent could not answer when last judged (at an attach or a turn's start).
    problem: std::sync::Mutex<Option<Unavailable>>,
    /// The models (provider, name) whose endpoint refused the default reasoning setting: their
    /// later turns go without it.
    reasoning_refused: Arc<std::sync::Mutex<std::collections::HashSet<(String, String)>>>,
}

/// What the agent is doing: one thing at a time.
enum Activity {
    Idle,
    /// A turn runs; cancelling it cancels this. The number tells turns apart.
    Turn(u64, CancellationToken),
    /// A new conversation is being set up, or the kernel restarted between turns.
    Switching,
}

struct Ready {
    /// The model and thread turns use now; a new conversation replaces them.
    in_use: std::sync::Mutex<InUse>,
    store: Mutex<ConversationStore>,
    /// Where `hailer login` keeps keys in a file.
    credentials_dir: PathBuf,
}

/// The model that answers and the thread its turns go to.
#[derive(Clone)]
struct InUse {
    thread: String,
    model: String,
    provider: String,
    /// The model `hailer.toml` named when this one was chosen: when the file names another,
    /// that one answers from the next turn on.
    configured: (String, String),
}

/// What one turn runs with, made from the configuration and the key as they are at its start.
struct TurnParts {
    client: ModelClient,
    /// The model answering, as (provider, name).
    model: (String, String),
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

impl Agent {
    /// Sets up the agent for `session`: the conversation (resumed unless `new_thread`) and a
    /// first judgement of the model's settings and key.
    fn set_up(
        session: &Arc<Session>,
        config_dir: &Path,
        new_thread: bool,
    ) -> (Self, Option<String>) {
        let (ready, notice) = match prepare(session, config_dir, new_thread) {
            Ok((ready, notice)) => (Ok(ready), notice),
            Err(unavailable) => (Err(unavailable), None),
        };
        let agent = Self {
            ready,
            activity: std::sync::Mutex::new(Activity::Idle),
            turns_started: std::sync::atomic::AtomicU64::new(0),
            problem: std::sync::Mutex::new(None),
            reasoning_refused: Arc::default(),
        };
        agent.judge_now(session);
        (agent, notice)
    }

    /// Why the agent cannot answer, as last judged.
    fn problem(&self) -> Option<hailer_protocol::AgentProblem> {
        let problem = match &self.ready {
            Err(unavailable) => Some(unavailable.clone()),
            Ok(_) => self.problem.lock().ok().and_then(|problem| problem.clone()),
        }?;
        Some(hailer_protocol::AgentProblem {
            message: problem.message,
            hint: problem.hint,
        })
    }

    fn judge_now(&self, session: &Session) {
        let Ok(ready) = &self.ready else {
            return;
        };
        let Some(in_use) = ready.in_use() else {
            return;
        };
        let loaded = session.loaded();
        let verdict = model_client::build(
            &loaded.config,
            &in_use.provider,
            &in_use.model,
            &session.client_env(),
            &ready.credentials_dir,
        )
        .err()
        .map(|refusal| Unavailable::refused(refusal, &loaded));
        if let Ok(mut problem) = self.problem.lock() {
            *problem = verdict;
        }
    }

    /// Starts a turn in the background; answers its id once it has begun. The configuration
    /// and the key are read again first, and kernel settings that changed are applied.
    pub async fn start_turn(
        self: &Arc<Self>,
        session: &Arc<Session>,
        text: String,
        client: String,
    ) -> Result<String, SessionError> {
        self.ready()?;
        if text.trim().is_empty() {
            return Err(SessionError::Invalid("the message is empty".to_owned()));
        }
        let cancel = CancellationToken::new();
        let number = self
            .turns_started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.begin(Activity::Turn(number, cancel.clone()))?;
        let parts = match self.prepare_turn(session).await {
            Ok(parts) => parts,
            Err(error) => {
                self.end_turn(number);
                return Err(error);
            }
        };
        // The agent is free again before the turn's last event goes out, so a client that
        // acts on that event is not refused as busy.
        let ending = Arc::downgrade(self);
        let on_end = Box::new(move || {
            if let Some(agent) = ending.upgrade() {
                agent.end_turn(number);
            }
        });
        let refused = Arc::clone(&self.reasoning_refused);
        let model = parts.model.clone();
        let on_reasoning_dropped = Box::new(move || {
            if let Ok(mut refused) = refused.lock() {
                refused.insert(model.clone());
            }
        });
        let (sink, started) = sink::SessionSink::new(
            Arc::downgrade(session),
            client,
            on_end,
            on_reasoning_dropped,
        );
        let agent = Arc::clone(self);
        let busy_session = Arc::clone(session);
        tokio::spawn(async move {
            let _busy = busy_session.busy();
            if let Ok(ready) = agent.ready.as_ref() {
                let mut store = ready.store.lock().await;
                Turn {
                    client: &parts.client,
                    instructions: &parts.instructions,
                    store: &mut store,
                    thread: &parts.thread,
                    tools: &parts.tools,
                    settings: &parts.settings,
                    events: &sink,
                    cancel: &cancel,
                }
                .run(&text)
                .await;
                // The copy back is part of the turn for the client that asked: its notebook
                // is on this machine when the turn's last event reaches it.
                busy_session.copy_back_notebooks().await;
                sink.release(Some(history(&store, &parts.thread)));
                drop(store);
            }
            agent.end_turn(number);
            // The turn's buffers (the model's stream, tool results) are free now.
            crate::memory::freed();
        });
        started
            .await
            .map_err(|_| SessionError::Invalid("the turn ended before it began".to_owned()))
    }

    /// The configuration and the key as they are now: the model client, tools, settings and
    /// instructions of the turn about to run; the kernel restarted first when its settings
    /// changed.
    async fn prepare_turn(
        self: &Arc<Self>,
        session: &Arc<Session>,
    ) -> Result<TurnParts, SessionError> {
        let ready = self.ready()?;
        let loaded = session.reload()?;
        let in_use = self
            .follow_configured_model(session, ready, &loaded.config)
            .await?;
        let config = loaded.config.clone();
        let (provider, model) = (in_use.provider.clone(), in_use.model.clone());
        let client_env = session.client_env();
        let credentials_dir = ready.credentials_dir.clone();
        let built = tokio::task::spawn_blocking(move || {
            model_client::build(&config, &provider, &model, &client_env, &credentials_dir)
        })
        .await
        .map_err(|error| SessionError::CredentialStore(format!("the key lookup failed: {error}")))?
        .map_err(|refusal| Unavailable::refused(refusal, &loaded));
        if let Ok(mut problem) = self.problem.lock() {
            *problem = built.as_ref().err().cloned();
        }
        let built = built?;
        if let Some((key, _)) = &built.key {
            session.redact_secret(key);
        }
        let client = built.client;
        session.apply_kernel_settings(&loaded, false).await?;
        let config = &loaded.config;
        let mut settings = turn_settings(config, &in_use.provider);
        let model = (in_use.provider.clone(), in_use.model.clone());
        if !settings.reasoning_effort_written
            && self
                .reasoning_refused
                .lock()
                .is_ok_and(|refused| refused.contains(&model))
        {
            settings.reasoning_effort = None;
        }
        let tools = session_tools(session, config)?;
        let instructions =
            prompt_context::instructions_for_turn(&prompt::system_prompt(session), session);
        Ok(TurnParts {
            client,
            model,
            thread: in_use.thread,
            tools,
            settings,
            instructions,
        })
    }

    /// The model in use, switched to the one `config` names when the file names another than
    /// it did (its latest thread resumed, or a new one); every client is told.
    async fn follow_configured_model(
        &self,
        session: &Session,
        ready: &Ready,
        config: &hailer_config::Config,
    ) -> Result<InUse, SessionError> {
        let current = ready
            .in_use()
            .ok_or_else(|| SessionError::Invalid("the agent is unusable".to_owned()))?;
        let configured = (config.model.provider.clone(), config.model.name.clone());
        if configured == current.configured {
            return Ok(current);
        }
        let (provider, model) = configured.clone();
        let thread = {
            let mut store = ready.store.lock().await;
            off_the_worker(|| match store.latest_thread_for(&model, &provider)? {
                Some(thread) => Ok(thread),
                None => store.add_thread(&model, &provider),
            })
            .map_err(SessionError::Store)?
        };
        session.set_history(history(&*ready.store.lock().await, &thread.id));
        let next = InUse {
            thread: thread.id,
            model: model.clone(),
            provider: provider.clone(),
            configured,
        };
        if let Ok(mut in_use) = ready.in_use.lock() {
            *in_use = next.clone();
        }
        tracing::info!(session = %session.id, %model, %provider, "hailer.toml names another model");
        session.notice(
            hailer_protocol::NoticeLevel::Info,
            format!(
                "hailer.toml now names {provider}:{model} (it was {}:{}); it answers from this \
                 turn on, in a conversation of its own.",
                current.configured.0, current.configured.1
            ),
        );
        session
            .events
            .publish(hailer_protocol::SessionEvent::ConversationStarted {
                model,
                provider,
                reason: hailer_protocol::ConversationReason::Model,
                client: "hailer.toml".to_owned(),
            });
        Ok(next)
    }

    /// Runs `work` while no turn runs and none can start; `None` (and `work` not run) while
    /// one runs.
    async fn between_turns<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        self.begin(Activity::Switching).ok()?;
        let switching = conversation::Switching(self);
        let out = work.await;
        drop(switching);
        Some(out)
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

    /// Cancels the running turn and waits, at most ten seconds (`CANCEL_WAIT`), until it has ended.
    pub async fn cancel_and_wait(&self) {
        if !self.cancel() {
            return;
        }
        let until = tokio::time::Instant::now() + CANCEL_WAIT;
        while self.turn_running() && tokio::time::Instant::now() < until {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    fn turn_running(&self) -> bool {
        self.activity
            .lock()
            .is_ok_and(|activity| matches!(*activity, Activity::Turn(..)))
    }

    /// The model in use, as `provider:name`; `None` when the agent cannot answer.
    fn model_label(&self) -> Option<String> {
        let in_use = self.ready.as_ref().ok()?.in_use()?;
        Some(format!("{}:{}", in_use.provider, in_use.model))
    }

    fn ready(&self) -> Result<&Ready, SessionError> {
        self.ready
            .as_ref()
            .map_err(|unavailable| unavailable.clone().into())
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

/// The thread's turns as attaching clients are sent them; empty when it cannot be read.
/// The read runs off the async worker.
fn history(store: &ConversationStore, thread: &str) -> Vec<hailer_protocol::PastTurn> {
    let items = match off_the_worker(|| store.load_items(thread)) {
        Ok(items) => items,
        Err(error) => {
            tracing::warn!(%error, "the conversation could not be read for attaching clients");
            return Vec::new();
        }
    };
    hailer_agent::past_turns(items.iter().map(|stored| &stored.item))
        .into_iter()
        .map(|turn| hailer_protocol::PastTurn {
            text: turn.text,
            tools: turn
                .tools
                .into_iter()
                .map(|call| hailer_protocol::PastToolCall {
                    call_id: call.call_id,
                    name: call.name,
                    preview: call.preview,
                    code: call.code,
                    ok: call.ok,
                    result: call.result,
                    output: call.output,
                })
                .collect(),
            answer: turn.answer,
            charts: Vec::new(),
        })
        .collect()
}

/// The turn settings `config` asks for, with the model of `provider` answering.
fn turn_settings(config: &hailer_config::Config, provider: &str) -> TurnSettings {
    let model = &config.model;
    TurnSettings {
        max_tool_output_chars: usize::try_from(config.hailer.max_tool_output_chars)
            .unwrap_or(usize::MAX),
        reasoning_effort: model
            .reasoning_effort_for(provider)
            .and_then(|effort| effort.to_string().parse().ok()),
        reasoning_effort_written: model.reasoning_effort_written,
        summariser: hailer_agent::Summariser {
            after_tokens: model.summarize_after_tokens,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The conversation store and the thread turns go to (resumed unless `new_thread`).
fn prepare(
    session: &Arc<Session>,
    config_dir: &Path,
    new_thread: bool,
) -> Result<(Ready, Option<String>), Unavailable> {
    let loaded = session.loaded();
    let model = &loaded.config.model;
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
    session.set_history(history(&store, &thread));
    Ok((
        Ready {
            in_use: std::sync::Mutex::new(InUse {
                thread,
                model: model.name.clone(),
                provider: model.provider.clone(),
                configured: (model.provider.clone(), model.name.clone()),
            }),
            store: Mutex::new(store),
            credentials_dir: login::credentials_dir(config_dir),
        },
        notice,
    ))
}

/// Every tool of the session under `config`, in the order the model is offered them: a turn
/// runs with these, and an MCP client is offered the same ones.
pub fn session_tools(
    session: &Arc<Session>,
    config: &hailer_config::Config,
) -> Result<ToolRegistry, SessionError> {
    let max_output_chars = turn_settings(config, &config.model.provider).max_tool_output_chars;
    kernel_tools(Arc::downgrade(session), max_output_chars)
        .and_then(|mut tools| {
            tools_workspace::register(&mut tools, config, &session.audit)?;
            Ok(tools)
        })
        .map_err(|duplicate| {
            SessionError::Invalid(format!("two tools share the name {}", duplicate.0))
        })
}

/// The most characters of a tool's result that `config` lets a caller see.
pub fn max_tool_output_chars(config: &hailer_config::Config) -> usize {
    turn_settings(config, &config.model.provider).max_tool_output_chars
}

/// The session's tools, in the order the model is offered them: the kernel, the cells, the
/// notebooks. The workspace tools (periods, skills, web pages) follow these.
fn kernel_tools(
    session: Weak<Session>,
    max_output_chars: usize,
) -> Result<ToolRegistry, hailer_agent::DuplicateTool> {
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
