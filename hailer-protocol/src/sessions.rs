use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/sessions`: start the workspace's session, or attach to the live one.
///
/// The client sends what the daemon cannot know: its working folder, its flags, and the values of
/// its `HAILER_*` variables and of the provider's key variables. `Debug` hides `env`'s values.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartSessionParams {
    /// The client's working folder; the workspace is found from it.
    pub cwd: String,
    /// `--workspace`.
    #[serde(default)]
    pub workspace: Option<String>,
    /// `--config`.
    #[serde(default)]
    pub config: Option<String>,
    /// `--kernel` (docker or unsafe-local).
    #[serde(default)]
    pub kernel: Option<String>,
    /// `--model`, as `name` or `provider:name`.
    #[serde(default)]
    pub model: Option<String>,
    /// Start a new conversation instead of resuming the stored one.
    #[serde(default)]
    pub new_thread: bool,
    /// The user agreed to run, as themselves with the unsafe-local runtime, notebooks a docker
    /// kernel wrote into the workspace. Without it such a start is refused with
    /// `consent_required`.
    #[serde(default)]
    pub run_sandbox_notebooks: bool,
    /// Who is attaching: `terminal`, `browser` or `api`.
    #[serde(default)]
    pub client: String,
    /// The client's environment variables that count for this workspace.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl std::fmt::Debug for StartSessionParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartSessionParams")
            .field("cwd", &self.cwd)
            .field("workspace", &self.workspace)
            .field("config", &self.config)
            .field("kernel", &self.kernel)
            .field("model", &self.model)
            .field("new_thread", &self.new_thread)
            .field("client", &self.client)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The state of a session's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum KernelStatus {
    Starting,
    Idle,
    Running,
    Restarting,
    Stopped,
    Failed,
}

/// Why a kernel ended that nobody asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum KernelExitCause {
    /// The kernel ran out of memory and was stopped (a docker kernel past its memory limit).
    OutOfMemory,
    /// Its container was removed from outside (`docker rm -f`, say).
    Removed,
    /// The kernel's process ended by itself, with an exit code.
    Exited,
    /// The kernel's process was ended by a signal (`kill`, the system's out-of-memory killer).
    Killed,
}

/// How a kernel ended without being asked to: the cause, its exit code when there is one, and
/// the sentence users see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KernelExit {
    pub cause: KernelExitCause,
    /// The process's exit code, or 128 + the signal's number when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    pub message: String,
}

impl KernelExit {
    /// The exit code a client that followed the kernel returns: the kernel's own when it is
    /// one a process can return and not 0 (an unrequested end is a failure), 1 otherwise.
    pub fn client_exit_code(&self) -> u8 {
        self.code
            .and_then(|code| u8::try_from(code).ok())
            .filter(|code| *code != 0)
            .unwrap_or(1)
    }
}

/// A live session as the API describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub id: String,
    pub workspace: String,
    /// `docker` or `unsafe-local`.
    pub runtime: String,
    /// The one-line description of the kernel users see (`Kernel:` line).
    pub kernel_line: String,
    pub kernel: KernelStatus,
    /// The model the agent uses, as `provider:name`.
    #[serde(default)]
    pub model: String,
    /// Why the kernel failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_error: Option<String>,
    /// How the kernel ended, when it ended without being asked to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_exit: Option<KernelExit>,
    /// The active notebook, relative to the notebooks folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_notebook: Option<String>,
    pub notebooks_dir: String,
    pub started_at: i64,
    pub clients: usize,
    /// Warnings from the configuration, shown once to each attaching client.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Why the agent cannot answer now (no key, say), judged from the configuration and the key
    /// as they are at this attach; running code does not need the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_problem: Option<AgentProblem>,
}

/// Why the agent cannot answer, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentProblem {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `POST /v1/sessions` answers with the session and whether it already existed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartSessionResponse {
    pub session: SessionInfo,
    pub attached: bool,
}

/// `GET /v1/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    pub sessions: Vec<SessionInfo>,
}

/// The longest run `ExecParams::timeout_secs` may ask for: one day.
pub const MAX_EXEC_TIMEOUT_SECS: u64 = 86_400;

/// `POST /v1/sessions/{id}/exec`: run code in the active (or named) notebook's kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecParams {
    pub code: String,
    #[serde(default)]
    pub notebook: Option<String>,
    /// Seconds the run may take, from 1 to 86400 (one day); the daemon's default when absent.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 86400)]
    pub timeout_secs: Option<u64>,
    /// Who asks (`terminal`, `doctor`, ...), for the audit trail; `api` when absent.
    #[serde(default)]
    pub client: Option<String>,
}

/// The value of the code's last expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecValue {
    pub mimetype: String,
    /// Plain text when the value has a text form; otherwise empty (rich outputs are named by
    /// their mimetype).
    pub text: String,
}

/// What a run printed and returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecResponse {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<ExecValue>,
    /// The kernel was replaced since the previous run: earlier state is gone.
    pub fresh_kernel: bool,
    pub notebook: String,
}

/// One notebook of the session's notebooks folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookEntry {
    /// Relative to the notebooks folder, with `/` separators.
    pub name: String,
    pub modified_at: i64,
    pub size: u64,
    pub active: bool,
    /// A kernel session is open for it.
    pub open: bool,
}

/// `GET /v1/sessions/{id}/notebooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookList {
    pub notebooks: Vec<NotebookEntry>,
    pub active: Option<String>,
    pub recent: Vec<String>,
    /// A link for a person to open the active notebook in marimo (it carries the kernel's
    /// token); absent while no kernel runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_link: Option<String>,
}

/// Which template a new notebook starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum NotebookTemplate {
    #[default]
    Starter,
    Empty,
}

/// `POST /v1/sessions/{id}/notebooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateNotebookParams {
    pub name: String,
    #[serde(default)]
    pub template: NotebookTemplate,
}

/// `POST /v1/sessions/{id}/notebooks/open` and `.../close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookRef {
    /// A name, a file name or a path inside the notebooks folder; empty means the active one.
    #[serde(default)]
    pub notebook: String,
}

/// What a notebook operation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookChange {
    pub notebook: String,
    pub active: Option<String>,
    /// A link for a person to open the notebook in marimo (it carries the kernel's token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    pub message: String,
}

/// One message on a session's event stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnvelope {
    pub seq: u64,
    pub at: i64,
    pub event: SessionEvent,
}

/// Events of one session, in order, to every attached client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SessionEvent {
    /// Sent first: the session as it is now.
    Attached { session: Box<SessionInfo> },
    /// Sent next to a client that attaches afresh (not resuming after a sequence number): the
    /// conversation's finished turns, oldest first. A running turn's events follow it.
    History { turns: Vec<crate::PastTurn> },
    /// The kernel changed state.
    Kernel {
        status: KernelStatus,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// Set when the kernel ended without being asked to (the status is then `failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit: Option<KernelExit>,
    },
    /// The kernel's start is preparing its environment (a first unsafe-local start creates the
    /// managed one): the same lines as a kernel job's reply, named steps and the installers'
    /// own output first, then `done` or `failed` naming the log that holds the whole output.
    /// Sent only when the start has such work to do.
    KernelSetup { line: crate::KernelJobLine },
    /// The active notebook changed.
    NotebookSwitched { notebook: String },
    /// A turn began: the user's text and which client sent it.
    TurnStarted {
        turn_id: String,
        text: String,
        client: String,
    },
    /// A piece of the answer as it streams.
    TextDelta { turn_id: String, delta: String },
    /// The agent started a tool: its name, a short preview of the arguments, and the code it
    /// runs in full (capped at 64,000 characters) when it runs code.
    ToolCallStarted {
        turn_id: String,
        call_id: String,
        name: String,
        preview: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// A tool finished: the start of its result, and the result for review (capped at 8,000
    /// characters).
    ToolCallFinished {
        turn_id: String,
        call_id: String,
        name: String,
        ok: bool,
        preview: String,
        #[serde(default)]
        output: String,
    },
    /// A tool call's code made a chart (one event per chart, after the call's
    /// `toolCallFinished`).
    Chart {
        turn_id: String,
        call_id: String,
        chart: crate::Chart,
    },
    /// The turn's token counts so far.
    Usage {
        turn_id: String,
        usage: crate::TurnUsage,
    },
    /// The turn ended with an answer.
    TurnFinished {
        turn_id: String,
        text: String,
        usage: crate::TurnUsage,
    },
    /// The turn failed: what happened and what to do.
    TurnFailed {
        turn_id: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// The turn was cancelled; the conversation stays valid.
    TurnCancelled { turn_id: String },
    /// A new conversation started (a client asked for one, or switched the model): earlier
    /// turns are no longer part of it.
    ConversationStarted {
        /// The model's name.
        model: String,
        /// The provider's id.
        provider: String,
        reason: crate::ConversationReason,
        /// Which client asked.
        client: String,
    },
    /// Something the user should read (a warning, a notice).
    Notice { level: NoticeLevel, message: String },
    /// The client fell behind; it should fetch the session again.
    Lagged { missed: u64 },
    /// The session ended; the stream closes next.
    Stopped { reason: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// `POST /v1/kernel/install-local`: prepare the unsafe-local kernel's Python environment ahead
/// of time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallLocalParams {
    /// The Python to build the environment from (default: the newest 3.11+ on the client's PATH).
    #[serde(default)]
    pub python: Option<String>,
    /// Install offline from this folder of wheels.
    #[serde(default)]
    pub wheelhouse: Option<String>,
    /// The client's PATH, to find Python the way the user's shell would.
    #[serde(default)]
    pub path: Option<String>,
}

/// The media type of a streamed reply: one JSON document per line.
pub const NDJSON: &str = "application/x-ndjson";
