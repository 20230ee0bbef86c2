//! One workspace's live session: its configuration, kernel, notebooks and attached clients.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hailer_config::{Loaded, Runtime};
use hailer_protocol::{
    ExecParams, ExecResponse, KernelExit, KernelStatus, NoticeLevel, PastTurn, SessionEnvelope,
    SessionEvent, SessionInfo, StartSessionParams,
};
use secrecy::ExposeSecret;
use tokio::sync::{Mutex, RwLock, watch};
use tokio_util::sync::CancellationToken;

use super::error::SessionError;
use crate::events::{SESSION_BACKLOG, SESSION_CAPACITY, SessionBus, Shared};
use crate::notebooks::NotebookState;
use hailerd_kernel::OwnerLock;
use hailerd_kernel::{Kernel, KernelSpec, OFFLINE_WHEELS_VAR};

/// How long a request waits for a kernel that is still starting (the first start may have to
/// build the Python environment).
const KERNEL_WAIT: Duration = Duration::from_secs(900);

/// The kernel's state as watchers see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSlot {
    /// Where the kernel is.
    pub status: KernelStatus,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// What the user can do about it.
    pub hint: Option<String>,
    /// How the kernel ended, when it ended without being asked to.
    pub exit: Option<KernelExit>,
}

impl KernelSlot {
    /// A state with nothing to explain.
    pub fn plain(status: KernelStatus) -> Self {
        Self {
            status,
            error: None,
            hint: None,
            exit: None,
        }
    }
}

#[derive(Debug)]
/// One live session: a workspace's kernel, notebooks, agent and event stream, shared by every client that attaches.
pub struct Session {
    /// The session's id.
    pub id: String,
    /// The workspace's folder: what the session is for, fixed for its life.
    root: PathBuf,
    /// The configuration as last read: again for every attach and every turn.
    pub(super) loaded: std::sync::RwLock<Arc<Loaded>>,
    /// What the clients said when they attached (folder, flags, environment), for reading the
    /// configuration and the key again.
    pub(super) inputs: std::sync::Mutex<StartSessionParams>,
    /// The owner lock's id, for the kernel's container labels.
    pub(super) owner_id: String,
    /// Hailer's own folders.
    pub(super) folders: super::HailerFolders,
    /// The settings the kernel was (or is being) started with.
    pub(super) kernel_settings: std::sync::Mutex<Option<super::kernel_settings::KernelSettings>>,
    /// The last trust decision written to the audit trail, to record each change once.
    pub(super) audited_trust: std::sync::Mutex<Option<super::trust_audit::TrustSeen>>,
    /// When it started (Unix seconds).
    pub started_at: i64,
    /// Its event stream.
    pub events: SessionBus,
    pub(super) kernel_state: watch::Sender<KernelSlot>,
    pub(super) kernel: RwLock<Option<Arc<Kernel>>>,
    pub(super) notebooks: Mutex<NotebookState>,
    clients: AtomicUsize,
    /// Requests being served right now (an exec waiting for the kernel counts).
    in_flight: AtomicUsize,
    /// Code runs in the kernel right now, a client's and the agent's: the kernel is `running`
    /// while there is one.
    runs: AtomicUsize,
    /// The kernel settings changes last announced as waiting for the running turn to end.
    pub(super) pending_announced: std::sync::Mutex<Option<String>>,
    /// What each notebook's `data_files` were listed from.
    pub(super) data_seen: std::sync::Mutex<super::data_listing::DataSeen>,
    idle_since: std::sync::Mutex<Option<Instant>>,
    /// Cancelled when the session stops.
    pub stopping: CancellationToken,
    /// The agent, set right after the session is created.
    pub agent: std::sync::OnceLock<Arc<dyn super::SessionAgent>>,
    /// Notices from setting the session up, shown to each client that attaches.
    pub(super) notices: std::sync::Mutex<Vec<String>>,
    /// What setting the agent up did with the stored conversation, for chats that attach.
    pub(super) conversation_note: std::sync::Mutex<Option<String>>,
    /// The conversation so far and the running turn's events, for clients that attach.
    turn_replay: std::sync::Mutex<Replay>,
    redactor: hailer_redact::Redactor,
    /// The workspace's audit trail, for this session's records.
    pub audit: hailerd_kernel::Audit,
    /// The charts the turns made.
    pub charts: super::charts::ChartBook,
    _owner: OwnerLock,
}

impl Session {
    pub(super) fn new(
        id: String,
        loaded: Loaded,
        inputs: StartSessionParams,
        owner: OwnerLock,
        folders: super::HailerFolders,
        redactor: hailer_redact::Redactor,
    ) -> Self {
        let (notebooks, notebooks_warning) =
            NotebookState::load_checked(&state_dir(&loaded), &loaded.config.hailer.notebooks_dir);
        if let Some(warning) = &notebooks_warning {
            tracing::warn!(%warning, "ignored the stored active notebook");
        }
        let (kernel_state, _) = watch::channel(KernelSlot::plain(KernelStatus::Starting));
        let audit = if loaded.config.hailer.audit {
            hailerd_kernel::Audit::open(
                &state_dir(&loaded),
                &hailer_audit::anchor_path(&folders.data, &loaded.workspace.root),
                &id,
                redactor.clone(),
            )
        } else {
            hailerd_kernel::Audit::default()
        };
        Self {
            id,
            root: loaded.workspace.root.clone(),
            loaded: std::sync::RwLock::new(Arc::new(loaded)),
            inputs: std::sync::Mutex::new(inputs),
            owner_id: owner.id.clone(),
            folders,
            kernel_settings: std::sync::Mutex::new(None),
            audited_trust: std::sync::Mutex::new(None),
            started_at: hailerd_kernel::unix_now(),
            events: SessionBus::new(SESSION_CAPACITY, SESSION_BACKLOG),
            kernel_state,
            kernel: RwLock::new(None),
            notebooks: Mutex::new(notebooks),
            clients: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            data_seen: std::sync::Mutex::default(),
            pending_announced: std::sync::Mutex::new(None),
            idle_since: std::sync::Mutex::new(Some(Instant::now())),
            stopping: CancellationToken::new(),
            agent: std::sync::OnceLock::new(),
            notices: std::sync::Mutex::new(notebooks_warning.into_iter().collect()),
            conversation_note: std::sync::Mutex::new(None),
            turn_replay: std::sync::Mutex::new(Replay::default()),
            charts: super::charts::ChartBook::default(),
            redactor,
            audit,
            _owner: owner,
        }
    }

    /// The workspace folder.
    pub fn workspace(&self) -> &Path {
        &self.root
    }

    /// The configuration as last read.
    pub fn loaded(&self) -> Arc<Loaded> {
        match self.loaded.read() {
            Ok(loaded) => Arc::clone(&loaded),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// How long one run of code may take: `[kernel] exec_timeout_secs`, or `--exec-timeout`.
    pub fn exec_timeout(&self) -> Duration {
        Duration::from_secs(self.loaded().config.kernel.exec_timeout_secs)
    }

    /// The notebooks folder.
    pub fn notebooks_dir(&self) -> PathBuf {
        self.loaded().config.hailer.notebooks_dir.clone()
    }

    /// The settings of the kernel that runs (or is starting); `None` before the first start.
    /// They differ from the configuration's until a changed setting is applied, between turns.
    pub fn running_kernel(&self) -> Option<super::kernel_settings::KernelSettings> {
        self.kernel_settings
            .lock()
            .ok()
            .and_then(|settings| settings.clone())
    }

    /// The runtime of the kernel that runs; the configured one before the first start.
    pub fn runtime(&self) -> Runtime {
        self.running_kernel().map_or_else(
            || self.loaded().config.kernel.runtime,
            |kernel| kernel.runtime,
        )
    }

    /// The `Kernel:` line users see, of the kernel that really runs.
    pub fn kernel_line(&self) -> String {
        let contract = hailer_kernel_bundle::contract();
        match self.running_kernel() {
            Some(kernel) => hailer_config::kernel_line(
                kernel.runtime,
                kernel.network.unwrap_or(false),
                &contract,
            ),
            None => self.loaded().config.kernel_line(&contract),
        }
    }

    /// What the API says about this session.
    pub async fn info(&self) -> SessionInfo {
        let slot = self.kernel_state.borrow().clone();
        let loaded = self.loaded();
        SessionInfo {
            id: self.id.clone(),
            workspace: self.workspace().display().to_string(),
            runtime: self.runtime().to_string(),
            kernel_line: self.kernel_line(),
            kernel: slot.status,
            model: self
                .agent
                .get()
                .and_then(|agent| agent.model_label())
                .map(|label| hailer_config::escape_visible(&label))
                .unwrap_or_else(|| {
                    hailer_config::escape_visible(&format!(
                        "{}:{}",
                        loaded.config.model.provider, loaded.config.model.name
                    ))
                }),
            kernel_error: slot.error,
            kernel_hint: slot.hint,
            kernel_exit: slot.exit,
            active_notebook: self.notebooks.lock().await.active.clone(),
            notebooks_dir: self.notebooks_dir().display().to_string(),
            started_at: self.started_at,
            clients: self.clients(),
            // The configuration's warnings quote the workspace's file, which someone else may
            // have written: every client (the page among them) gets them with visible escapes.
            warnings: loaded
                .warnings
                .iter()
                .map(|warning| hailer_config::escape_visible(&warning.message))
                .chain(self.notices.lock().map(|n| n.clone()).unwrap_or_default())
                .collect(),
            conversation_note: self
                .conversation_note
                .lock()
                .ok()
                .and_then(|note| note.clone()),
            agent_problem: self.agent.get().and_then(|agent| agent.problem()),
        }
    }

    /// A new conversation began: what setting the session up said about the conversation (that
    /// it was resumed, say) no longer holds for clients attaching from now on.
    pub fn forget_setup_notices(&self) {
        if let Ok(mut notices) = self.notices.lock() {
            notices.clear();
        }
        if let Ok(mut note) = self.conversation_note.lock() {
            *note = None;
        }
    }

    /// Its kernel failed (did not start, or ended on its own) and no client or request is on
    /// it: nothing is lost by replacing it with a fresh session.
    pub fn is_abandoned_after_failure(&self) -> bool {
        self.kernel_state.borrow().status == KernelStatus::Failed && self.idle_for().is_some()
    }

    /// How many clients are attached.
    pub fn clients(&self) -> usize {
        self.clients.load(Ordering::Relaxed)
    }

    /// Counts a client attached until the guard drops.
    pub fn attach(self: &Arc<Self>) -> AttachGuard {
        self.clients.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut idle) = self.idle_since.lock() {
            *idle = None;
        }
        AttachGuard {
            session: Arc::clone(self),
        }
    }

    /// How long the session has had no client; `None` while one is attached or a request is
    /// being served.
    pub fn idle_for(&self) -> Option<Duration> {
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            return None;
        }
        self.idle_since
            .lock()
            .ok()
            .and_then(|idle| idle.map(|since| since.elapsed()))
    }

    /// Publishes a turn's event and keeps it for clients that attach before the turn ends.
    pub fn publish_turn_event(&self, event: SessionEvent) {
        if let Ok(mut replay) = self.turn_replay.lock() {
            let envelope = self.events.publish(event);
            replay.running.push(envelope);
        }
    }

    /// The turn `turn_id` ended: forget its events; `history` (with that turn in it) is what
    /// attaching clients are sent from now on.
    pub fn end_turn_replay(&self, history: Option<Vec<PastTurn>>, turn_id: &str) {
        if let Ok(mut replay) = self.turn_replay.lock() {
            replay.running.clear();
            if let Some(mut history) = history {
                self.charts
                    .fill(&mut history, &replay.history, Some(turn_id));
                replay.history = Arc::new(history);
            }
        }
    }

    /// The conversation's finished turns, for clients that attach from now on (a new
    /// conversation began, say).
    pub fn set_history(&self, mut history: Vec<PastTurn>) {
        if let Ok(mut replay) = self.turn_replay.lock() {
            self.charts.fill(&mut history, &replay.history, None);
            replay.history = Arc::new(history);
        }
    }

    /// A live subscription, the conversation's finished turns and the running turn's events so
    /// far; together they hold every event exactly once.
    pub fn subscribe_with_replay(&self) -> Subscription {
        match self.turn_replay.lock() {
            Ok(replay) => (
                self.events.subscribe(),
                Arc::clone(&replay.history),
                replay.running.clone(),
            ),
            Err(_) => (self.events.subscribe(), Arc::default(), Vec::new()),
        }
    }

    /// Masks `secret` in the daemon's log from now on.
    pub fn redact_secret(&self, secret: &secrecy::SecretString) {
        self.redactor.add_secret(secret.expose_secret());
    }

    /// Brings changed notebooks back from a docker kernel now (after a turn, on a switch).
    pub async fn copy_back_notebooks(&self) {
        let kernel = self.kernel.read().await.clone();
        if let Some(kernel) = kernel
            && let Some(line) = kernel.copy_back().await
        {
            self.notice(NoticeLevel::Warning, line);
        }
    }

    /// Tests the kernel's isolation from outside it (`hailer doctor --probe`).
    pub async fn probe(
        &self,
        params: &hailer_protocol::ProbeParams,
    ) -> Result<hailer_protocol::ProbeReport, SessionError> {
        let _busy = self.busy();
        let kernel = self.kernel().await?;
        Ok(kernel.probe(&params.token_paths).await?)
    }

    /// Marks a request in progress until the guard drops; the linger clock restarts then.
    pub fn busy(&self) -> BusyGuard<'_> {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        BusyGuard { session: self }
    }

    pub(super) fn set_kernel_state(&self, slot: KernelSlot) {
        let message = slot.error.clone();
        let hint = slot.hint.clone();
        let exit = slot.exit.clone();
        let status = slot.status;
        self.kernel_state.send_replace(slot);
        self.events.publish(SessionEvent::Kernel {
            status,
            message,
            hint,
            exit,
        });
    }

    /// Tells every attached client something, at this level.
    pub fn notice(&self, level: NoticeLevel, message: impl Into<String>) {
        self.events.publish(SessionEvent::Notice {
            level,
            message: message.into(),
        });
    }

    /// The running kernel, waiting for it while it starts.
    pub async fn kernel(&self) -> Result<Arc<Kernel>, SessionError> {
        let mut state = self.kernel_state.subscribe();
        let wait = async {
            loop {
                let slot = state.borrow_and_update().clone();
                match slot.status {
                    KernelStatus::Starting | KernelStatus::Restarting => {}
                    KernelStatus::Failed | KernelStatus::Stopped => {
                        return Err(SessionError::KernelFailed {
                            message: slot
                                .error
                                .unwrap_or_else(|| "the kernel stopped".to_owned()),
                            hint: slot.hint,
                        });
                    }
                    KernelStatus::Idle | KernelStatus::Running => {
                        if let Some(kernel) = self.kernel.read().await.clone() {
                            return Ok(kernel);
                        }
                    }
                }
                if state.changed().await.is_err() {
                    return Err(SessionError::Stopping);
                }
            }
        };
        tokio::select! {
            result = tokio::time::timeout(KERNEL_WAIT, wait) => {
                result.map_err(|_| SessionError::KernelTimeout(KERNEL_WAIT.as_secs()))?
            }
            () = self.stopping.cancelled() => Err(SessionError::Stopping),
        }
    }

    /// The active notebook's path, or the configured one.
    pub async fn active_notebook(&self) -> PathBuf {
        match self.notebooks.lock().await.active.clone() {
            Some(name) => self.notebooks_dir().join(name),
            None => self.loaded().config.hailer.notebook.clone(),
        }
    }

    /// Runs code for a client (not the agent): in the named notebook, or the active one.
    pub async fn exec(&self, params: &ExecParams) -> Result<ExecResponse, SessionError> {
        let _busy = self.busy();
        let kernel = self.kernel().await?;
        let notebook = match params.notebook.as_deref().filter(|n| !n.trim().is_empty()) {
            Some(reference) => crate::notebooks::resolve(&self.notebooks_dir(), reference)?.path,
            None => self.active_notebook().await,
        };
        let timeout = params
            .timeout_secs
            .map_or_else(|| self.exec_timeout(), Duration::from_secs);
        let client = params.client.as_deref().unwrap_or("api");
        let result = self
            .run_code(&kernel, &notebook, &params.code, timeout, Some(client))
            .await;
        if let Err(error) = &result {
            self.report_kernel_error(error);
        }
        let response = result?;
        if response.fresh_kernel {
            self.notice(
                NoticeLevel::Warning,
                "The kernel was restarted: variables from earlier runs are gone.",
            );
        }
        Ok(response)
    }

    /// Runs `code` in `notebook` and records the run in the audit trail: before it runs (the
    /// code does not run when that record cannot be written) and when it ends (as cancelled when
    /// this future is dropped first). `client` as for [`hailerd_kernel::Audit::entry`].
    pub async fn run_code(
        &self,
        kernel: &Kernel,
        notebook: &Path,
        code: &str,
        timeout: Duration,
        client: Option<&str>,
    ) -> Result<ExecResponse, hailerd_kernel::KernelError> {
        let _running = self.running();
        self.refresh_data_lists(kernel, notebook).await;
        let record = self
            .audit
            .start_exec(client, &kernel.relative_name(notebook), code)
            .await
            .map_err(hailerd_kernel::KernelError::AuditUnwritable)?;
        let result = kernel.exec(notebook, code, timeout).await;
        record.finish(&result);
        result
    }

    /// Tells every client about a run the memory limit ended (other failures are the caller's
    /// reply alone).
    pub fn report_kernel_error(&self, error: &hailerd_kernel::KernelError) {
        if let hailerd_kernel::KernelError::OutOfMemory { .. } = error {
            let message = error.to_string();
            let mut chars = message.chars();
            let capitalised: String = chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect())
                .unwrap_or_default();
            let hint = error.hint().unwrap_or_default();
            self.notice(NoticeLevel::Error, format!("{capitalised}. {hint}"));
        }
    }

    /// Counts a code run until the guard is dropped (a cancelled run included): the first run
    /// makes an idle kernel `running`, the last one to end makes it `idle` again.
    fn running(&self) -> RunningGuard<'_> {
        if self.runs.fetch_add(1, Ordering::AcqRel) == 0 {
            self.set_running(true);
        }
        RunningGuard { session: self }
    }

    fn set_running(&self, running: bool) {
        let current = self.kernel_state.borrow().status;
        let next = match (current, running) {
            (KernelStatus::Idle, true) => KernelStatus::Running,
            (KernelStatus::Running, false) => KernelStatus::Idle,
            _ => return,
        };
        self.set_kernel_state(KernelSlot::plain(next));
    }

    /// What the kernel needs under `loaded`, with the clients' environment as last sent.
    pub(super) fn kernel_spec(&self, loaded: &Loaded) -> KernelSpec {
        let config = &loaded.config;
        let client_env = self
            .inputs
            .lock()
            .map(|inputs| inputs.env.clone())
            .unwrap_or_default();
        let env_path = |name: &str| {
            client_env
                .get(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        let mut withheld: Vec<String> = vec!["OPENAI_API_KEY".to_owned()];
        for provider in config.model_providers.values() {
            withheld.push(provider.env_key.clone());
            withheld.extend(provider.env_http_headers.values().cloned());
        }
        // A provider refused until `hailer trust` still names variables that are secrets.
        for setting in &loaded.trust.settings {
            withheld.extend(setting.variables.iter().cloned());
        }
        KernelSpec {
            runtime: config.kernel.runtime,
            workspace: self.workspace().to_path_buf(),
            notebooks_dir: config.hailer.notebooks_dir.clone(),
            python: config.kernel.python.clone(),
            wheelhouse: env_path(OFFLINE_WHEELS_VAR),
            data_dir: self.folders.data.clone(),
            kernel_envs: self.folders.kernel_envs.clone(),
            workspace_data: config.hailer.data_dir.clone(),
            memory: config.kernel.memory.clone(),
            docker: (config.kernel.runtime == Runtime::Docker).then(|| {
                hailerd_kernel::DockerSettings {
                    image: env_path("HAILER_KERNEL_IMAGE")
                        .map(|image| image.display().to_string())
                        .or_else(|| config.kernel.image.clone()),
                    memory: config.kernel.memory.clone(),
                    cpus: config.kernel.cpus,
                    network: config.kernel.network,
                    data_dir: config.hailer.data_dir.clone(),
                    owner_id: self.owner_id.clone(),
                }
            }),
            base_env: std::env::vars().collect(),
            withheld_names: withheld,
            python_trust: loaded.trust.setting("[kernel] python").cloned(),
            audit: self.audit.clone(),
        }
    }

    /// Stops the kernel; the caller removes the session from the registry.
    pub(super) async fn shut_down(&self, reason: &str) {
        if let Some(agent) = self.agent.get() {
            agent.cancel_turn().await;
        }
        self.stopping.cancel();
        if let Some(kernel) = self.kernel.write().await.take() {
            kernel.stop().await;
            let mut entry = self
                .audit
                .entry(hailer_protocol::AuditKind::KernelStop, Some("daemon"));
            entry.outcome = Some(hailer_protocol::AuditOutcome::Ok);
            entry.duration_ms =
                Some(u64::try_from(kernel.started_at.elapsed().as_millis()).unwrap_or(u64::MAX));
            entry.detail = Some(format!("stopped: {reason}"));
            self.audit.write(entry);
        }
        self.kernel_state
            .send_replace(KernelSlot::plain(KernelStatus::Stopped));
        self.events.publish(SessionEvent::Stopped {
            reason: reason.to_owned(),
        });
        tracing::info!(session = %self.id, reason, "session stopped");
    }
}

/// A live subscription, the conversation's finished turns, the running turn's events so far.
pub(super) type Subscription = (
    tokio::sync::broadcast::Receiver<Shared<SessionEnvelope>>,
    Arc<Vec<PastTurn>>,
    Vec<Shared<SessionEnvelope>>,
);

/// What clients that attach are sent before the live events.
#[derive(Debug, Default)]
struct Replay {
    /// The conversation's finished turns.
    history: Arc<Vec<PastTurn>>,
    /// The running turn's events so far.
    running: Vec<Shared<SessionEnvelope>>,
}

/// The workspace's `.hailer/` folder.
pub(super) fn state_dir(loaded: &Loaded) -> PathBuf {
    hailer_platform::state_folder_of(&loaded.workspace.root)
}

/// Decrements the client count and starts the linger clock at zero.
#[derive(Debug)]
pub struct AttachGuard {
    session: Arc<Session>,
}

impl Drop for AttachGuard {
    fn drop(&mut self) {
        if self.session.clients.fetch_sub(1, Ordering::Relaxed) == 1
            && let Ok(mut idle) = self.session.idle_since.lock()
        {
            *idle = Some(Instant::now());
        }
    }
}

/// A request in progress; see [`Session::busy`].
#[derive(Debug)]
pub struct BusyGuard<'a> {
    session: &'a Session,
}

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        self.session.in_flight.fetch_sub(1, Ordering::Relaxed);
        if let Ok(mut idle) = self.session.idle_since.lock()
            && idle.is_some()
        {
            *idle = Some(Instant::now());
        }
    }
}

/// A code run in progress; see [`Session::running`].
#[derive(Debug)]
struct RunningGuard<'a> {
    session: &'a Session,
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        if self.session.runs.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.session.set_running(false);
        }
    }
}
