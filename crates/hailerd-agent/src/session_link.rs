//! The agent as its session sees it ([`SessionAgent`], owned by the session module below this
//! one), the factory the daemon hands the session registry, and the way back from a session to
//! its agent for the API.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;

use hailer_protocol::AgentProblem;

use super::Agent;
use hailerd_session::{AgentFactory, AgentSetup, BoxFuture, Session, SessionAgent, SessionError};

impl SessionAgent for Agent {
    fn model_label(&self) -> Option<String> {
        Agent::model_label(self)
    }

    fn problem(&self) -> Option<AgentProblem> {
        Agent::problem(self)
    }

    /// The OS credential store may be asked: off the async workers.
    fn judge(self: Arc<Self>, session: Arc<Session>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || self.judge_now(&session)).await;
        })
    }

    fn between_turns<'a>(
        &'a self,
        work: BoxFuture<'a, Result<(), SessionError>>,
    ) -> BoxFuture<'a, Option<Result<(), SessionError>>> {
        Box::pin(Agent::between_turns(self, work))
    }

    fn cancel_turn(&self) -> BoxFuture<'_, ()> {
        Box::pin(Agent::cancel_and_wait(self))
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// Sets up each new session's agent, with stored keys read from `config_dir`.
pub fn factory(config_dir: PathBuf) -> AgentFactory {
    Arc::new(move |session, new_thread| {
        let (agent, notice) = Agent::set_up(session, &config_dir, new_thread);
        AgentSetup {
            agent: Arc::new(agent),
            notice,
        }
    })
}

/// The session's agent; `None` before it is set up.
pub fn of(session: &Session) -> Option<Arc<Agent>> {
    let agent = Arc::clone(session.agent.get()?);
    agent.into_any().downcast::<Agent>().ok()
}
