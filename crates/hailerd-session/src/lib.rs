//! Sessions: at most one live session per workspace, shared by every client that attaches.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod events;
mod notebooks;

pub use events::{DAEMON_CAPACITY, Encoded, Envelope, EventBus, SessionBus, Shared, encode};
pub use notebooks::{NotebookError, NotebookState};

mod agent_handle;
mod charts;
mod data_listing;
mod error;
mod follow_changes;
mod kernel_settings;
mod kernel_setup;
mod notebook_ops;
#[allow(clippy::module_inception)]
mod session;
mod sweep;
mod trust_audit;
mod workspace_stop;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use hailer_config::{ClientEnv, LoadInputs, Loaded, Overrides, Severity};
use hailer_protocol::{KernelStatus, NoticeLevel, StartSessionParams};
use tokio::sync::Mutex;

pub use agent_handle::{AgentFactory, AgentSetup, BoxFuture, SessionAgent};
pub use error::SessionError;
pub use follow_changes::is_settings_variable;
pub use workspace_stop::stop as stop_workspace;

use hailer_agent::off_the_worker;
use hailerd_kernel::OwnerLock;
pub use session::{KernelSlot, Session};

use hailerd_kernel::Kernel;

/// Hailer's own folders, as the daemon resolved them at its start.
#[derive(Debug, Clone)]
pub struct HailerFolders {
    /// Hailer's data folder (records of unsafe-local kernels).
    pub data: PathBuf,
    /// Hailer's configuration folder (trust records, the credential file).
    pub config: PathBuf,
    /// Where the managed kernel environments live (`HAILER_KERNEL_ENVS`, else under `data`).
    pub kernel_envs: PathBuf,
}

/// Every live session of this daemon.
pub struct Sessions {
    live: Mutex<HashMap<String, Arc<Session>>>,
    folders: HailerFolders,
    redactor: hailer_redact::Redactor,
    /// Makes each new session's agent.
    agents: AgentFactory,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("folders", &self.folders)
            .finish_non_exhaustive()
    }
}

impl Sessions {
    /// No sessions yet, for these folders.
    pub fn new(
        folders: HailerFolders,
        redactor: hailer_redact::Redactor,
        agents: AgentFactory,
    ) -> Self {
        Self {
            live: Mutex::new(HashMap::new()),
            folders,
            redactor,
            agents,
        }
    }

    /// How many sessions are live.
    pub async fn count(&self) -> usize {
        self.live.lock().await.len()
    }

    /// The live session with this id.
    pub async fn get(&self, id: &str) -> Result<Arc<Session>, SessionError> {
        self.live
            .lock()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))
    }

    /// Every live session.
    pub async fn all(&self) -> Vec<Arc<Session>> {
        let mut sessions: Vec<_> = self.live.lock().await.values().cloned().collect();
        sessions.sort_by_key(|session| session.started_at);
        sessions
    }

    /// Attaches to the workspace's live session, or starts one. The kernel starts in the
    /// background; the returned flag says whether the session existed already.
    pub async fn start_or_attach(
        &self,
        params: &StartSessionParams,
    ) -> Result<(Arc<Session>, bool), SessionError> {
        let inputs = load_inputs(params, &self.folders.config)?;
        let loaded = off_the_worker(|| hailer_config::load(&inputs))?;
        let mut live = self.live.lock().await;
        while let Some(existing) = live
            .values()
            .find(|session| session.workspace() == loaded.workspace.root)
            .cloned()
        {
            // `hailer trust` (or a revoke, or an edit) changed which settings apply: an idle
            // session is replaced; one with clients reads the settings again as they attach.
            let trust_changed = applied_settings(&existing.loaded().trust)
                != applied_settings(&loaded.trust)
                && existing.idle_for().is_some();
            if !existing.is_abandoned_after_failure() && !trust_changed {
                drop(live);
                existing.follow_attach(params).await?;
                return Ok((existing, true));
            }
            // Its kernel failed, or its trusted settings changed, and nobody is on it: a fresh
            // session replaces it, so that what was fixed meanwhile (an image pulled, Docker
            // started, hailer.toml edited or trusted) counts. The old one is shut down first,
            // so its last copy-back lands before the new kernel's copy-in.
            live.remove(&existing.id);
            drop(live);
            let reason = if trust_changed {
                "replaced by a new session: the workspace's trusted settings changed"
            } else {
                "replaced by a new session: its kernel had failed"
            };
            tracing::info!(session = %existing.id, reason, "replacing a session");
            existing.shut_down(reason).await;
            live = self.live.lock().await;
        }
        // Files are read and written, the conversation store opened: off the async worker.
        let session = off_the_worker(|| self.new_session(loaded, params))?;
        let spec = session.kernel_spec(&session.loaded());
        tracing::info!(
            session = %session.id,
            owner = %session.owner_id,
            workspace = %session.workspace().display(),
            "session started"
        );
        live.insert(session.id.clone(), Arc::clone(&session));
        drop(live);
        session.start_kernel_with(spec);
        Ok((session, false))
    }

    /// A new session of the workspace `loaded` describes, with its owner lock and its agent.
    fn new_session(
        &self,
        loaded: hailer_config::Loaded,
        params: &StartSessionParams,
    ) -> Result<Arc<Session>, SessionError> {
        fatal_problems(&loaded)?;
        let agreed = sandbox_notebooks_gate(&loaded, params.run_sandbox_notebooks)?;
        sweep::sweep_leftovers(&session::state_dir(&loaded));
        let owner = OwnerLock::acquire(&session::state_dir(&loaded))
            .map_err(SessionError::io("cannot create the session's owner lock"))?;
        let id = new_session_id();
        let mut inputs = params.clone();
        inputs.run_sandbox_notebooks = false;
        inputs.new_thread = false;
        let session = Arc::new(Session::new(
            id,
            loaded,
            inputs,
            owner,
            self.folders.clone(),
            self.redactor.clone(),
        ));
        session.audit_trust(&session.loaded());
        let setup = (self.agents)(&session, params.new_thread);
        let _ = session.agent.set(setup.agent);
        if let (Some(notice), Ok(mut note)) = (setup.notice, session.conversation_note.lock()) {
            *note = Some(notice);
        }
        if agreed {
            session.audit_consent(&params.client);
        }
        Ok(session)
    }

    /// Stops a session: its kernel ends and it leaves the registry.
    pub async fn stop(&self, id: &str, reason: &str) -> Result<(), SessionError> {
        let session = self
            .live
            .lock()
            .await
            .remove(id)
            .ok_or_else(|| SessionError::NotFound(id.to_owned()))?;
        session.shut_down(reason).await;
        Ok(())
    }

    /// Stops the live session of `workspace`, if there is one; its id.
    pub async fn stop_workspace(
        &self,
        workspace: &std::path::Path,
        reason: &str,
    ) -> Option<String> {
        let resolved = std::fs::canonicalize(workspace).ok();
        let id = self
            .live
            .lock()
            .await
            .values()
            .find(|session| {
                session.workspace() == workspace
                    || resolved.is_some()
                        && std::fs::canonicalize(session.workspace()).ok() == resolved
            })
            .map(|session| session.id.clone())?;
        self.stop(&id, reason).await.ok()?;
        Some(id)
    }

    /// Stops every session, saying why to their clients.
    pub async fn stop_all(&self, reason: &str) {
        let sessions: Vec<_> = self.live.lock().await.drain().map(|(_, s)| s).collect();
        for session in sessions {
            session.shut_down(reason).await;
        }
    }

    /// Stops sessions whose last client left longer ago than their linger time.
    pub async fn reap_lingering(&self) {
        let expired: Vec<String> = self
            .live
            .lock()
            .await
            .values()
            .filter(|session| {
                let linger = std::time::Duration::from_secs(
                    session.loaded().config.daemon.session_linger_secs,
                );
                session.idle_for().is_some_and(|idle| idle >= linger)
            })
            .map(|session| session.id.clone())
            .collect();
        for id in expired {
            let _ = self.stop(&id, "no client for the linger time").await;
        }
    }
}

/// Starts the kernel and opens the active notebook, reporting its progress: notices, or the
/// steps of an environment set-up ([`kernel_setup`]).
async fn start_kernel(session: Arc<Session>, spec: hailerd_kernel::KernelSpec) {
    let setup = kernel_setup::KernelSetup::new(&session);
    let progress = |report: hailer_marimo::Report<'_>| setup.report(report);
    session.data_listed_at_start(&spec.workspace_data);
    let starting = std::time::Instant::now();
    let started = tokio::select! {
        started = Kernel::start(&spec, &progress) => started,
        () = session.stopping.cancelled() => return,
    };
    setup.finish(started.as_ref().err());
    record_kernel_start(&session, &spec, starting, &started);
    match started {
        Ok(kernel) => {
            session.redact_secret(kernel.token());
            let kernel = Arc::new(kernel);
            if session.stopping.is_cancelled() {
                kernel.stop().await;
                return;
            }
            *session.kernel.write().await = Some(Arc::clone(&kernel));
            let notebook = session.active_notebook().await;
            if let Err(error) = kernel.open(&notebook).await {
                session.notice(
                    NoticeLevel::Warning,
                    format!("The notebook {} did not open: {error}", notebook.display()),
                );
            }
            session.set_kernel_state(KernelSlot::plain(KernelStatus::Idle));
            tokio::spawn(watch_kernel(
                Arc::downgrade(&session),
                session.stopping.clone(),
                kernel,
            ));
        }
        Err(error) => {
            tracing::warn!(session = %session.id, %error, "the kernel did not start");
            session.set_kernel_state(KernelSlot {
                status: KernelStatus::Failed,
                error: Some(error.to_string()),
                hint: error.hint(),
                exit: None,
            });
        }
    }
}

/// The audit record of a kernel start: its runtime and isolation settings, and whether it
/// started.
fn record_kernel_start(
    session: &Session,
    spec: &hailerd_kernel::KernelSpec,
    starting: std::time::Instant,
    started: &Result<Kernel, hailerd_kernel::KernelError>,
) {
    let error = started.as_ref().err();
    let mut entry = session
        .audit
        .entry(hailer_protocol::AuditKind::KernelStart, Some("daemon"));
    let mut detail = session.kernel_line();
    if let Some(docker) = &spec.docker {
        detail.push_str(&format!(
            "; memory {}, cpus {}, network {}",
            docker.memory,
            docker.cpus,
            if docker.network { "on" } else { "off" }
        ));
    }
    if spec.runtime == hailer_config::Runtime::Sandbox {
        detail.push_str(&format!(
            "; {}",
            hailerd_kernel::sandbox_isolation(&spec.memory.written)
        ));
    }
    if let Some(digest) = started.as_ref().ok().and_then(Kernel::image_digest) {
        detail.push_str(&format!("; image {digest}"));
    }
    if let Some(error) = error {
        detail.push_str(&format!("; did not start: {error}"));
    }
    entry.outcome = Some(if error.is_some() {
        hailer_protocol::AuditOutcome::Error
    } else {
        hailer_protocol::AuditOutcome::Ok
    });
    entry.duration_ms = Some(u64::try_from(starting.elapsed().as_millis()).unwrap_or(u64::MAX));
    entry.detail = Some(detail);
    session.audit.write(entry);
}

/// How often a running kernel is checked for having ended.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Notices a kernel that ended while the session still wanted it (killed, removed, out of
/// memory, exited) and marks the session's kernel failed, saying why. A kernel the session
/// stops itself is not reported.
async fn watch_kernel(
    session: std::sync::Weak<Session>,
    stopping: tokio_util::sync::CancellationToken,
    kernel: Arc<Kernel>,
) {
    loop {
        tokio::select! {
            () = stopping.cancelled() => return,
            () = tokio::time::sleep(WATCH_EVERY) => {}
        }
        let Some(exit) = kernel.ended().await else {
            continue;
        };
        if stopping.is_cancelled() {
            return;
        }
        let Some(session) = session.upgrade() else {
            return;
        };
        // A kernel the session replaced (to apply changed settings) was stopped on purpose.
        let current = session.kernel.read().await.clone();
        if !current.is_some_and(|current| Arc::ptr_eq(&current, &kernel)) {
            return;
        }
        tracing::warn!(session = %session.id, cause = ?exit.cause, code = ?exit.code, "the kernel ended on its own");
        let hint = match exit.cause {
            hailer_protocol::KernelExitCause::OutOfMemory => {
                "Raise memory under [kernel] in hailer.toml, then start a new session."
            }
            _ => "Start a new session to get a new kernel (leave, then run hailer again).",
        };
        let mut entry = session
            .audit
            .entry(hailer_protocol::AuditKind::KernelStop, Some("daemon"));
        entry.outcome = Some(match exit.cause {
            hailer_protocol::KernelExitCause::OutOfMemory => {
                hailer_protocol::AuditOutcome::OutOfMemory
            }
            _ => hailer_protocol::AuditOutcome::Error,
        });
        entry.duration_ms =
            Some(u64::try_from(kernel.started_at.elapsed().as_millis()).unwrap_or(u64::MAX));
        entry.detail = Some(format!("ended on its own: {}", exit.message));
        session.audit.write(entry);
        session.set_kernel_state(KernelSlot {
            status: KernelStatus::Failed,
            error: Some(exit.message.clone()),
            hint: Some(hint.to_owned()),
            exit: Some(exit),
        });
        return;
    }
}

/// Refuses a configuration with fatal problems, naming them.
pub(crate) fn fatal_problems(loaded: &Loaded) -> Result<(), SessionError> {
    let preflight = loaded.preflight();
    let fatal: Vec<_> = preflight
        .fatal
        .iter()
        .filter(|problem| problem.severity == Severity::Fatal)
        .cloned()
        .collect();
    if fatal.is_empty() {
        return Ok(());
    }
    Err(SessionError::Config(hailer_config::ConfigError {
        fatal,
        warnings: preflight.warnings,
    }))
}

/// After a docker kernel wrote notebooks here, an unsafe-local start runs them on this machine as
/// the user: it needs the user's agreement, which is kept by removing the marker.
/// Whether the user agreed just now.
/// Which of the workspace's gated settings apply, by name: what `hailer trust` (or a revoke, or
/// an edit) changes.
fn applied_settings(trust: &hailer_config::Trust) -> Vec<(&str, bool)> {
    trust
        .settings
        .iter()
        .map(|setting| (setting.name.as_str(), setting.applies()))
        .collect()
}

pub(crate) fn sandbox_notebooks_gate(loaded: &Loaded, agreed: bool) -> Result<bool, SessionError> {
    if loaded.config.kernel.runtime != hailer_config::Runtime::UnsafeLocal {
        return Ok(false);
    }
    let marker = session::state_dir(loaded).join(hailer_docker::COPIES_MARKER_FILE);
    if !marker.exists() {
        return Ok(false);
    }
    if !agreed {
        return Err(SessionError::ConsentRequired {
            message: "a docker kernel wrote notebooks in this workspace, and the unsafe-local \
                      runtime would run them on this machine, as you"
                .to_owned(),
            hint: format!(
                "Review the notebooks in {} (with git diff, say), then agree at the prompt of an \
                 interactive hailer, or start with --run-sandbox-notebooks; or keep the docker \
                 runtime.",
                loaded.config.hailer.notebooks_dir.display()
            ),
        });
    }
    std::fs::remove_file(&marker).map_err(SessionError::io(format!(
        "cannot record the agreement by removing {}",
        marker.display()
    )))?;
    tracing::info!(workspace = %loaded.workspace.root.display(), "the user agreed to run notebooks a docker kernel wrote");
    Ok(true)
}

/// What the configuration loader gets for a client's request; `config_dir` is the user's Hailer
/// configuration folder, where workspace trust is recorded.
pub fn load_inputs(
    params: &StartSessionParams,
    config_dir: &std::path::Path,
) -> Result<LoadInputs, SessionError> {
    let cwd = PathBuf::from(&params.cwd);
    if !cwd.is_absolute() {
        return Err(SessionError::Invalid(
            "cwd must be an absolute path to the client's working folder".to_owned(),
        ));
    }
    let (provider, model) = match params.model.as_deref().map(str::trim) {
        Some(spec) if !spec.is_empty() => match spec.split_once(':') {
            Some((provider, name)) => (Some(provider.to_owned()), Some(name.to_owned())),
            None => (None, Some(spec.to_owned())),
        },
        _ => (None, None),
    };
    Ok(LoadInputs {
        cwd,
        home: std::env::home_dir(),
        app_data: hailer_config::AppDataDirs::of_this_user(),
        overrides: Overrides {
            workspace: params.workspace.as_ref().map(PathBuf::from),
            config: params.config.as_ref().map(PathBuf::from),
            model,
            provider,
            kernel: params.kernel.clone(),
            kernel_image: None,
            kernel_base_image: None,
            log_level: None,
            exec_timeout: params.exec_timeout_secs.map(|secs| secs.to_string()),
        },
        env: ClientEnv::from_pairs(params.env.clone()),
        config_dir: Some(config_dir.to_path_buf()),
    })
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 6];
    rand::fill(&mut bytes);
    format!("s_{}", hex::encode(bytes))
}
