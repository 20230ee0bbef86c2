use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/sessions`: start the workspace's session, or attach to the live one.
///
/// The client sends what the daemon cannot know: its working folder, its flags, and the values of
/// its `HAILER_*` variables and of the provider's key variables. `Debug` hides `env`'s values.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartSessionParams {
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
    /// `--kernel`: the runtime's name.
    #[serde(default)]
    #[schema(pattern = "^(docker|sandbox|unsafe-local)$")]
    pub kernel: Option<String>,
    /// `--model`, as `name` or `provider:name`.
    #[serde(default)]
    pub model: Option<String>,
    /// Start a new conversation instead of resuming the stored one.
    #[serde(default)]
    pub new_thread: bool,
    /// `--exec-timeout`: how long one run of code may take, in seconds, over
    /// `[kernel] exec_timeout_secs`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::numbers::optional_whole"
    )]
    #[schema(minimum = 1, maximum = 86400)]
    pub exec_timeout_secs: Option<u64>,
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
            .field("exec_timeout_secs", &self.exec_timeout_secs)
            .field("client", &self.client)
            .field("run_sandbox_notebooks", &self.run_sandbox_notebooks)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The state of a session's kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum KernelStatus {
    /// The session is new and its kernel is being started in the background.
    Starting,
    /// The kernel is up and no client's run is under way.
    Idle,
    /// Code is running in the kernel: a client's `POST /v1/sessions/{id}/exec` or an agent's
    /// tool call.
    Running,
    /// The kernel is being replaced, to apply changed kernel settings of the configuration.
    Restarting,
    /// The session ended and its kernel was stopped.
    Stopped,
    /// The kernel did not start, or ended without being asked to; `kernelError` or
    /// `kernelExit` says why.
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
    /// What ended the kernel.
    pub cause: KernelExitCause,
    /// The process's exit code, or 128 + the signal's number when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// One sentence for the user saying what happened (which container or process ended, and
    /// how).
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
    /// Session id the daemon assigned (`s_` and 12 hex digits), unique while the daemon runs;
    /// the `{id}` of the `/v1/sessions/{id}/...` routes.
    pub id: String,
    /// The workspace folder, absolute; a daemon has at most one live session per workspace.
    pub workspace: String,
    /// `docker` or `unsafe-local`.
    pub runtime: String,
    /// The one-line description of the kernel users see (`Kernel:` line).
    pub kernel_line: String,
    /// The kernel's state at the time of the reply.
    pub kernel: KernelStatus,
    /// The model the agent uses, as `provider:name`.
    #[serde(default)]
    pub model: String,
    /// Why the kernel failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_error: Option<String>,
    /// What the user can do about the kernel's failure, when there is something to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_hint: Option<String>,
    /// How the kernel ended, when it ended without being asked to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_exit: Option<KernelExit>,
    /// The active notebook, relative to the notebooks folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_notebook: Option<String>,
    /// The notebooks folder, absolute.
    pub notebooks_dir: String,
    /// When the session started, in seconds since the Unix epoch.
    pub started_at: i64,
    /// Clients attached to the session's event stream right now.
    pub clients: usize,
    /// Warnings from the configuration, shown once to each attaching client.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// What became of the conversation when the session was set up (resumed with its earlier
    /// turns, or started anew because the model changed), for a chat to say; not a warning,
    /// and absent once a new conversation begins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_note: Option<String>,
    /// Why the agent cannot answer now (no key, say), judged from the configuration and the key
    /// as they are at this attach; running code does not need the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_problem: Option<AgentProblem>,
}

/// Why the agent cannot answer, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentProblem {
    /// What keeps the agent from answering, for a person.
    pub message: String,
    /// What to do about it, when there is something to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// `POST /v1/sessions` answers with the session and whether it already existed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartSessionResponse {
    /// The session as it is after the request.
    pub session: SessionInfo,
    /// `true` when the workspace's session was live already and the client joined it; `false`
    /// when this request started it (its kernel then starts in the background).
    pub attached: bool,
}

/// `GET /v1/sessions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    /// Every live session of the daemon, in no particular order.
    pub sessions: Vec<SessionInfo>,
}

/// The longest run `ExecParams::timeout_secs` may ask for: one day.
pub const MAX_EXEC_TIMEOUT_SECS: u64 = 86_400;

/// `POST /v1/sessions/{id}/exec`: run code in the active (or named) notebook's kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExecParams {
    /// Python source to run, without NUL characters (the pattern) and at most 1 MiB of UTF-8
    /// (refused with 400 otherwise; a body over 2 MiB is refused with 413).
    #[schema(pattern = r"^[^\x00]*$")]
    pub code: String,
    /// The notebook whose kernel runs it: a name, a file name or a path inside the notebooks
    /// folder; the active notebook when absent or blank.
    #[serde(default)]
    pub notebook: Option<String>,
    /// Seconds the run may take, from 1 to 86400 (one day); the daemon's default when absent.
    #[serde(default, deserialize_with = "crate::numbers::optional_whole")]
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
    /// The MIME type marimo rendered the value as (`text/plain`, `text/html`, a Vega-Lite
    /// chart type, ...).
    pub mimetype: String,
    /// Plain text when the value has a text form; otherwise empty (rich outputs are named by
    /// their mimetype).
    pub text: String,
}

/// What a run printed and returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecResponse {
    /// Everything the run printed to standard output.
    pub stdout: String,
    /// Everything the run printed to standard error, tracebacks included.
    pub stderr: String,
    /// `false` when the code (or a cell it ran) raised; the request itself still succeeded.
    pub success: bool,
    /// The value of the code's last expression; absent when the run rendered none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<ExecValue>,
    /// The kernel was replaced since the previous run: earlier state is gone.
    pub fresh_kernel: bool,
    /// The notebook the code ran in, relative to the notebooks folder with `/` separators.
    pub notebook: String,
}

/// One notebook of the session's notebooks folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookEntry {
    /// Relative to the notebooks folder, with `/` separators.
    pub name: String,
    /// When the file was last modified, in seconds since the Unix epoch; 0 when unknown.
    pub modified_at: i64,
    /// The file's size in bytes.
    pub size: u64,
    /// Whether it is the session's active notebook.
    pub active: bool,
    /// A kernel session is open for it.
    pub open: bool,
}

/// `GET /v1/sessions/{id}/notebooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookList {
    /// Every marimo notebook under the notebooks folder, sorted by name; hidden files and
    /// folders are left out.
    pub notebooks: Vec<NotebookEntry>,
    /// The active notebook, relative to the notebooks folder: the one last made active, else
    /// the configured notebook; absent when neither applies (the configured one lies outside
    /// the notebooks folder).
    pub active: Option<String>,
    /// Notebooks made active lately, most recent first, at most 10.
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
    /// Cells that import `mo`, `pl` and `duckdb` and define the workspace and data paths and
    /// the period helpers; the default.
    #[default]
    Starter,
    /// A notebook with no cells.
    Empty,
}

/// `POST /v1/sessions/{id}/notebooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateNotebookParams {
    /// A title the file name is made from (`Sales report (Q3)` becomes `sales_report_q3.py`,
    /// cut at 80 characters before `.py`): at most 200 characters, with a letter or digit of
    /// `A`–`Z`, `a`–`z`, `0`–`9`, and without `/`, `\` or `..`. The pattern says exactly that:
    /// pieces of an optional `.` and one character that is not `.`, `/` or `\`, one of whose
    /// characters is a letter or digit, with an optional `.` at the end. A name whose file exists
    /// is a conflict (409).
    #[schema(
        min_length = 1,
        max_length = 200,
        pattern = r"^(\.?[^./\\])*\.?[A-Za-z0-9](\.?[^./\\])*\.?$"
    )]
    pub name: String,
    /// The template the notebook starts from; `starter` when absent.
    #[serde(default)]
    pub template: NotebookTemplate,
}

/// `POST /v1/sessions/{id}/notebooks/open` and `.../close`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NotebookRef {
    /// A name, a file name or a path inside the notebooks folder; empty means the active one.
    #[serde(default)]
    pub notebook: String,
}

/// What a notebook operation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotebookChange {
    /// The notebook acted on, relative to the notebooks folder with `/` separators.
    pub notebook: String,
    /// The session's active notebook after the operation; absent when none was ever made
    /// active.
    pub active: Option<String>,
    /// A link for a person to open the notebook in marimo (it carries the kernel's token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// One sentence saying what was done, for a person.
    pub message: String,
}

/// One message on a session's event stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnvelope {
    /// Position in the session's stream, from 1 and without gaps; a client that reconnects
    /// passes the last one it got as `?after=`. 0 on messages sent to one client only
    /// (`attached`, `history`, `lagged`).
    pub seq: u64,
    /// When the event was published, in seconds since the Unix epoch.
    pub at: i64,
    /// What happened.
    pub event: SessionEvent,
}

/// Events of one session, in order, to every attached client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SessionEvent {
    /// Sent first: the session as it is now.
    Attached {
        /// The session's description at the time of attaching.
        session: Box<SessionInfo>,
    },
    /// Sent next to a client that attaches afresh (not resuming after a sequence number): the
    /// conversation's finished turns, oldest first. A running turn's events follow it.
    History {
        /// The finished turns of the current conversation, oldest first.
        turns: Vec<crate::PastTurn>,
    },
    /// The kernel changed state.
    Kernel {
        /// The state the kernel is in now.
        status: KernelStatus,
        /// Why the kernel failed, when the status is `failed`; absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// What the user can do about the failure, when there is something to say.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
        /// Set when the kernel ended without being asked to (the status is then `failed`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit: Option<KernelExit>,
    },
    /// The kernel's start is preparing its environment (a first unsafe-local start creates the
    /// managed one): the same lines as a kernel job's reply, named steps and the installers'
    /// own output first, then `done` or `failed` naming the log that holds the whole output.
    /// Sent only when the start has such work to do.
    KernelSetup {
        /// One line of the set-up, as a kernel job's reply carries it.
        line: crate::KernelJobLine,
    },
    /// The active notebook changed.
    NotebookSwitched {
        /// The notebook now active, relative to the notebooks folder with `/` separators.
        notebook: String,
    },
    /// A turn began: the user's text and which client sent it.
    TurnStarted {
        /// The turn's id (16 hex digits); every later event of the turn carries it. Fields of
        /// event variants keep their Rust names on the wire (`turn_id`, not `turnId`).
        turn_id: String,
        /// The message the model is sent, with a skill or prompt template already expanded.
        text: String,
        /// Who sent it: `terminal`, `browser`, or `api` when the request did not say.
        client: String,
    },
    /// A piece of the answer as it streams.
    TextDelta {
        /// The turn the text belongs to.
        turn_id: String,
        /// The next piece of the answer's text, to append to the pieces before it.
        delta: String,
    },
    /// The agent started a tool: its name, a short preview of the arguments, and the code it
    /// runs in full (capped at 64,000 characters) when it runs code. A client may also call a
    /// tool itself, outside any turn (another agent over MCP): `client` then names it, and the
    /// call's events (this one, its `toolCallFinished` and `chart` events) carry an empty
    /// `turn_id`.
    ToolCallStarted {
        /// The turn that makes the call; empty for a client's own call.
        turn_id: String,
        /// The id the model gave the call; the matching `toolCallFinished` and `chart` events
        /// carry it.
        call_id: String,
        /// The tool's name (`marimo_execute`, `notebook_list`, ...).
        name: String,
        /// The call's arguments on one line, capped at 80 characters.
        preview: String,
        /// The code the call runs, when its arguments carry code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// The client that called the tool itself, outside any turn (`mcp`); absent for the
        /// calls the model makes in a turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// A tool finished: the start of its result, and the result for review (capped at 8,000
    /// characters).
    ToolCallFinished {
        /// The turn that made the call; empty for a client's own call.
        turn_id: String,
        /// The id of the call, as in its `toolCallStarted`.
        call_id: String,
        /// The tool's name.
        name: String,
        /// `false` when the result reports an error or the call was interrupted.
        ok: bool,
        /// The start of the result, capped at 200 characters.
        preview: String,
        /// The result for review, capped at 8,000 characters.
        #[serde(default)]
        output: String,
    },
    /// A tool call's code made a chart (one event per chart, after the call's
    /// `toolCallFinished`).
    Chart {
        /// The turn whose tool call made the chart; empty for a client's own call.
        turn_id: String,
        /// The tool call whose code made it.
        call_id: String,
        /// The chart, with its picture when the kernel could render it.
        chart: crate::Chart,
    },
    /// The turn's token counts so far.
    Usage {
        /// The turn the counts are for.
        turn_id: String,
        /// The counts summed over the turn's model calls so far; both are set.
        usage: crate::TurnUsage,
    },
    /// The turn ended with an answer.
    TurnFinished {
        /// The turn that ended.
        turn_id: String,
        /// The answer: the text of the model's last reply, the one without tool calls.
        text: String,
        /// The turn's token counts; `None` inside when the endpoint reported none.
        usage: crate::TurnUsage,
    },
    /// The turn failed: what happened and what to do.
    TurnFailed {
        /// The turn that failed.
        turn_id: String,
        /// What went wrong, for a person.
        message: String,
        /// What to do about it, when there is something to do.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
    },
    /// The turn was cancelled; the conversation stays valid.
    TurnCancelled {
        /// The turn that was cancelled.
        turn_id: String,
    },
    /// A new conversation started (a client asked for one, or switched the model): earlier
    /// turns are no longer part of it.
    ConversationStarted {
        /// The model's name.
        model: String,
        /// The provider's id.
        provider: String,
        /// A fresh start with the same model, or a model switch.
        reason: crate::ConversationReason,
        /// Which client asked (`hailer.toml` when an edit of the configuration named another
        /// model).
        client: String,
    },
    /// Something the user should read (a warning, a notice).
    Notice {
        /// How much it matters.
        level: NoticeLevel,
        /// The text to show, one or more sentences.
        message: String,
    },
    /// The client fell behind; it should fetch the session again.
    Lagged {
        /// How many events the client did not receive.
        missed: u64,
    },
    /// The session ended; the stream closes next.
    Stopped {
        /// Why, for a person (the daemon is stopping, `hailer kernel stop` was run, ...).
        reason: String,
    },
}

/// How much a [`SessionEvent::Notice`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum NoticeLevel {
    /// For information only (the configuration now names another model, say).
    Info,
    /// Something the user may need to act on (the kernel was restarted and earlier variables
    /// are gone, say).
    Warning,
    /// Something failed (a run was ended by the kernel's memory limit, say).
    Error,
}

/// `POST /v1/kernel/install-local`: prepare the unsafe-local kernel's Python environment ahead
/// of time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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
