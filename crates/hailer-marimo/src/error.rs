//! The one error type of this crate.
//!
//! Every message says what went wrong and, where there is something to do, what to do about it.
//! None of them carries the server's access token.

use std::path::PathBuf;
use std::time::Duration;

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while preparing, starting or driving a marimo server.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was attempted and on which path, as a clause (`could not create <path>`).
        context: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// No usable Python interpreter was found.
    #[error(
        "no Python 3.11 or newer was found (tried: {tried}). Install Python 3.11+ or name one \
         explicitly (for example with HAILER_PYTHON)"
    )]
    PythonNotFound {
        /// Each candidate tried and why it was refused, joined by `; `, or the candidate names
        /// when none was on `PATH`.
        tried: String,
    },

    /// The interpreter that was named explicitly cannot be used.
    #[error("the Python at {path} cannot be used: {reason}")]
    PythonUnusable {
        /// The interpreter as it was named.
        path: PathBuf,
        /// Why it cannot be used, as a clause (`it is Python 3.10.2, and 3.11.0 or newer is
        /// needed`, `it did not answer within 15 s`).
        reason: String,
    },

    /// The folder meant for the managed virtual environment holds something else.
    #[error(
        "{path} is not empty and is not a virtual environment this program created; \
         remove it or choose another folder for the kernel environment"
    )]
    VenvFolderTaken {
        /// The venv folder that was asked for, [`crate::VenvRequest::dir`].
        path: PathBuf,
    },

    /// `python -m venv` or `pip install` failed.
    #[error("{step} failed ({status}). Its last lines:\n{tail}")]
    InstallFailed {
        /// Which step failed: `creating the virtual environment`, `uv pip install` or
        /// `pip install`.
        step: &'static str,
        /// How the program ended, e.g. `exit code 1` or `killed by signal 9`.
        status: String,
        /// Its last 25 lines of stdout and stderr, interleaved as they arrived.
        tail: String,
    },

    /// The marimo server process ended before it answered.
    #[error("marimo exited before it was ready ({status}). Its log ends with:\n{log_tail}")]
    ServerExited {
        /// How the process ended, e.g. `exit code 1` or `killed by signal 9`.
        status: String,
        /// The last `TAIL_LINES` lines of the server's log, token masked.
        log_tail: String,
    },

    /// The marimo server did not become ready in time.
    #[error(
        "marimo did not answer on {url} within {} s. Its log ends with:\n{log_tail}",
        .waited.as_secs()
    )]
    ServerNotReady {
        /// The server's base URL, `http://127.0.0.1:<port>`.
        url: String,
        /// The readiness limit that ran out, [`crate::LaunchOptions::ready_timeout`].
        waited: Duration,
        /// The last `TAIL_LINES` lines of the server's log, token masked.
        log_tail: String,
    },

    /// A server answers on the port but does not accept this start's token.
    #[error(
        "the server on {url} is not the marimo this program started (it does not check our token); \
         stop whatever else listens on that port or choose another port"
    )]
    ForeignServer {
        /// The base URL that answered, `http://127.0.0.1:<port>`.
        url: String,
    },

    /// The HTTP request itself failed (connection refused, reset, ...).
    #[error("could not reach marimo for {what}: {reason}")]
    Transport {
        /// What was being done, as a gerund phrase (`listing files`, `opening a kernel session`).
        what: String,
        /// Why, as a clause: a refused connection, a timeout, the HTTP client's own message
        /// with the URL replaced by `<url>`, or that the client could not be set up.
        reason: String,
    },

    /// marimo answered with an error status.
    #[error("marimo refused {what} (HTTP {status}): {detail}")]
    Status {
        /// What was being done, as a gerund phrase (`listing files`, `opening a kernel session`).
        what: String,
        /// The HTTP status.
        status: u16,
        /// marimo's explanation: the `detail`, `error` or `message` of a JSON body, an HTML
        /// page's title or text, or the raw body, cut to 500 characters.
        detail: String,
    },

    /// marimo answered a file operation but said it failed (`success: false`).
    #[error("marimo could not finish {what}: {detail}")]
    FileOpFailed {
        /// What was being done, as a gerund phrase (`creating a file`).
        what: String,
        /// marimo's message, or a note that it gave none.
        detail: String,
    },

    /// marimo answered something this client cannot read.
    #[error("marimo gave an unreadable answer to {what}: {detail}")]
    BadReply {
        /// What was being done, as a gerund phrase (`listing files`, `opening a kernel session`).
        what: String,
        /// What could not be read, with the start of the reply where it helps.
        detail: String,
    },

    /// A reply, or one line of it, was larger than allowed.
    #[error("marimo's answer to {what} is larger than {limit} bytes, so it was cut off")]
    ReplyTooLarge {
        /// What was being done, as a gerund phrase (`listing files`, `opening a kernel session`).
        what: String,
        /// The cap that was passed, in bytes: [`crate::ClientOptions::max_reply_bytes`].
        limit: usize,
    },

    /// A call did not finish before its deadline.
    #[error("{what} did not finish within {:.1} s", .waited.as_secs_f64())]
    Timeout {
        /// What was being done, as a gerund phrase (`listing files`, `opening a kernel session`).
        what: String,
        /// How long had passed since the call started when it was given up.
        waited: Duration,
    },

    /// The notebook file does not exist (marimo then answers an empty stream).
    #[error("marimo could not open {path}: the notebook file does not exist")]
    NotebookMissing {
        /// The notebook path the session was asked for.
        path: PathBuf,
    },

    /// Opening a kernel session failed before the kernel was ready.
    #[error("marimo could not start a kernel for {path}: {reason}")]
    SessionOpenFailed {
        /// The notebook path the session was for.
        path: PathBuf,
        /// What happened instead of `kernel-ready`, as a clause (marimo closed the stream, the
        /// stream ended, no session is open).
        reason: String,
    },

    /// An execute stream ended without its final event.
    #[error(
        "the kernel's reply ended before the run finished; the kernel may have stopped. \
         Run the code again"
    )]
    StreamCut,

    /// The kernel died or stopped answering; a fresh session replaces it.
    #[error(
        "the kernel for {} {reason}, so it was restarted on a fresh session: variables \
         from earlier runs are gone until the notebook's cells run again{}",
        file_name(path),
        if *timed_out { "" } else { ". Run the code again" }
    )]
    KernelRestarted {
        /// The notebook whose kernel was replaced (named by its file name in the message: the
        /// path is where the kernel sees it, which may be inside a container).
        path: PathBuf,
        /// What the old kernel did, as a predicate (`stopped running`, `did not finish the run
        /// within 30.0 s`).
        reason: String,
        /// The run was stopped because its time limit passed (running it again as it is would
        /// only take as long again).
        timed_out: bool,
    },

    /// A caller passed something this client cannot send.
    #[error("{0}")]
    InvalidInput(String),

    /// Code handed to the kernel contains a NUL character, which Python source cannot hold.
    #[error("the code contains a NUL character, which Python source cannot contain; remove it")]
    NulInCode,

    /// A code-mode operation on the notebook's cells failed.
    #[error("marimo could not change the notebook's cells: {detail}")]
    CodeMode {
        /// What went wrong (the snippet printed no cell id or list, or its JSON could not be
        /// read), followed by the last lines of the kernel's stderr when there were any.
        detail: String,
    },
}

/// A path's last part, for messages.
fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

impl Error {
    /// An [`Error::Io`] with a sentence of context.
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }

    /// A [`Error::Transport`] from a reqwest error, never echoing URLs with credentials.
    pub(crate) fn transport(what: impl Into<String>, err: &reqwest::Error) -> Self {
        let reason = if err.is_connect() {
            "the connection was refused (is the server still running?)".to_owned()
        } else if err.is_timeout() {
            "the request timed out".to_owned()
        } else {
            describe_without_url(err)
        };
        Self::Transport {
            what: what.into(),
            reason,
        }
    }
}

/// reqwest's message plus its causes, with the URL replaced (kept short, and never a secret).
fn describe_without_url(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    if let Some(url) = err.url() {
        text = text.replace(url.as_str(), "<url>");
    }
    let mut source = std::error::Error::source(err);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}
