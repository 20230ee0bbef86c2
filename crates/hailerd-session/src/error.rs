//! What can go wrong with a session.

use crate::notebooks::NotebookError;
use hailerd_kernel::KernelError;

#[derive(Debug, thiserror::Error)]
/// What can go wrong with a session, each mapped to one wire code by the API.
pub enum SessionError {
    #[error("no session {0}; list the live ones with GET /v1/sessions")]
    /// No live session has this id.
    NotFound(String),
    #[error("{0}")]
    /// The workspace's configuration is wrong.
    Config(#[from] hailer_config::ConfigError),
    #[error("{0}")]
    /// The request cannot be done as asked.
    Invalid(String),
    #[error("the kernel could not start: {message}")]
    /// The kernel did not start.
    KernelFailed {
        /// Why.
        message: String,
        /// What the user can do about it.
        hint: Option<String>,
    },
    #[error("{0}")]
    /// The kernel failed.
    Kernel(#[from] KernelError),
    #[error("{0}")]
    /// A notebook could not be found, made or opened.
    Notebook(#[from] NotebookError),
    #[error("the kernel did not become ready within {0} s")]
    /// The kernel did not become ready in time (seconds).
    KernelTimeout(u64),
    #[error("the agent cannot answer in this session: {message}")]
    /// The session has no agent that can answer.
    AgentUnavailable {
        /// Why.
        message: String,
        /// What the user can do about it.
        hint: Option<String>,
    },
    #[error("the credential store could not be used: {0}")]
    /// The system's credential store failed.
    CredentialStore(String),
    /// A skill or prompt the request named does not exist (the hint lists those that do).
    #[error("{message}")]
    UnknownName {
        /// Which name is unknown.
        message: String,
        /// The names that exist.
        hint: String,
    },
    /// The user must agree first: an unsafe-local start would run notebooks a docker kernel wrote.
    #[error("{message}")]
    ConsentRequired {
        /// What needs agreeing.
        message: String,
        /// How to agree.
        hint: String,
    },
    /// The request cannot be done as asked (the hint says what would work).
    #[error("{message}")]
    Rejected {
        /// Why.
        message: String,
        /// What would work.
        hint: Option<String>,
    },
    #[error("{0}")]
    /// The conversation store failed.
    Store(hailer_agent::Error),
    #[error("a turn is running in this workspace's session")]
    /// A turn is running already.
    Busy,
    #[error("the session is stopping")]
    /// The session is stopping.
    Stopping,
    #[error("{context}: {source}")]
    /// A file could not be read or written.
    Io {
        /// What was being done.
        context: String,
        #[source]
        /// The system's error.
        source: std::io::Error,
    },
}

impl SessionError {
    /// Wraps an I/O error with what was being done, for `map_err`.
    pub fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |source| Self::Io { context, source }
    }
}
