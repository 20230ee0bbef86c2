//! What a session needs of its agent. The agent sits above the session (it drives the
//! session's kernel and notebooks), so the session knows it only through this trait, and the
//! layer above makes each session's agent through an [`AgentFactory`].

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use hailer_protocol::AgentProblem;

use super::{Session, SessionError};

/// A boxed future that can move between threads.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a session needs of its agent; the agent crate implements it, so the session names no agent type.
pub trait SessionAgent: std::fmt::Debug + Send + Sync + 'static {
    /// The model in use, as `provider:name`, when the agent could be set up.
    fn model_label(&self) -> Option<String>;

    /// Why the agent cannot answer, as last judged.
    fn problem(&self) -> Option<AgentProblem>;

    /// Judges again whether the model can be reached with the session's configuration and
    /// key as they are now.
    fn judge(self: Arc<Self>, session: Arc<Session>) -> BoxFuture<'static, ()>;

    /// Runs `work` while no turn or switch runs, holding them off until it ends; `None`, and
    /// `work` dropped unrun, when one is running.
    fn between_turns<'a>(
        &'a self,
        work: BoxFuture<'a, Result<(), SessionError>>,
    ) -> BoxFuture<'a, Option<Result<(), SessionError>>>;

    /// Cancels the running turn, if any, and returns once it has ended (within a few seconds):
    /// a session that stops lets its turn end as cancelled before the kernel goes, so the
    /// model is never handed the error of a kernel that was stopped under it.
    fn cancel_turn(&self) -> BoxFuture<'_, ()>;

    /// The agent itself, for the layer above that knows its type.
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// What setting a new session's agent up gave: the agent, and a notice for its clients.
pub struct AgentSetup {
    /// The session's agent.
    pub agent: Arc<dyn SessionAgent>,
    /// Something the user should read about the agent (it cannot answer yet, for instance).
    pub notice: Option<String>,
}

/// Sets up the agent of a new session; `true` starts a new conversation instead of resuming.
pub type AgentFactory = Arc<dyn Fn(&Arc<Session>, bool) -> AgentSetup + Send + Sync>;
