//! What can go wrong with a session.

use hailerd_kernel::KernelError;
use crate::notebooks::NotebookError;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session {0}; list the live ones with GET /v1/sessions")]
    NotFound(String),
    #[error("{0}")]
    Config(#[from] hailer_config::ConfigError),
    #[error("{0}")]
    Invalid(String),
    #[error("the kernel could not start: {message}")]
    KernelFailed {
        message: String,
        hint: Option<String>,
    },
    #[error("{0}")]
    Kernel(#[from] KernelError),
    #[error("{0}")]
    Notebook(#[from] NotebookError),
    #[error("the kernel did not become ready within {0} s")]
    KernelTimeout(u64),
    #[error("the agent cannot answer in this session: {message}")]
    AgentUnavailable {
        message: String,
        hint: Option<String>,
    },
    #[error("the credential store could not be used: {0}")]
    CredentialStore(String),
    /// A skill or prompt the request named does not exist (the hint lists those that do).
    #[error("{message}")]
    UnknownName { message: String, hint: String },
    /// The user must agree first: an unsafe-local start would run notebooks a docker kernel wrote.
    #[error("{message}")]
    ConsentRequired { message: String, hint: String },
    /// The request cannot be done as asked (the hint says what would work).
    #[error("{message}")]
    Rejected {
        message: String,
        hint: Option<String>,
    },
    #[error("{0}")]
    Store(hailer_agent::Error),
    #[error("a turn is running in this workspace's session")]
    Busy,
    #[error("the session is stopping")]
    Stopping,
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl SessionError {
    pub fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let context = context.into();
        move |source| Self::Io { context, source }
    }
}
