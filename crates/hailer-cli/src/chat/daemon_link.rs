//! The chat's connection to hailerd: find or start the daemon, start or attach to the
//! workspace's session, follow its events.

use std::time::Duration;

use futures_util::StreamExt;
use hailer_config::HailerHome;
use hailer_protocol::{SessionEnvelope, SessionInfo, StartTurnParams, StartTurnResponse};

use crate::daemon_client;
use crate::http::Endpoint;
use crate::session_client::{self, EventSocket, SessionFlags};

/// How long a request of the chat may take (a turn answers once it has begun).
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// The client name other clients see on this terminal's turns.
pub(super) const CLIENT: &str = "terminal";

/// A session this terminal is attached to.
#[derive(Debug)]
pub(super) struct Link {
    pub endpoint: Endpoint,
    pub session: SessionInfo,
    /// The session existed before this terminal came.
    pub attached: bool,
    pub socket: EventSocket,
}

/// Finds or starts hailerd, then starts or attaches to the workspace's session and follows it.
pub(super) async fn connect(home: HailerHome, flags: SessionFlags) -> anyhow::Result<Link> {
    let connected = daemon_client::find_or_start(&home).await?;
    let started = session_client::start(&connected.endpoint, &flags).await?;
    let socket = session_client::follow_events(&connected.endpoint, &started.session.id).await?;
    // The session's names, warnings and paths are shown: cleaned once, here.
    let session = hailer_render::clean_all(&started.session).unwrap_or(started.session);
    Ok(Link {
        endpoint: connected.endpoint,
        session,
        attached: started.attached,
        socket,
    })
}

/// Why a turn was not started.
#[derive(Debug)]
pub(super) enum TurnRefused {
    /// Another turn runs.
    Busy,
    Failed(anyhow::Error),
}

/// What a turn asks: a message, or a skill or saved prompt the daemon expands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ask {
    pub text: String,
    pub skill: Option<hailer_protocol::SkillRequest>,
    pub prompt: Option<hailer_protocol::PromptRequest>,
}

impl Ask {
    pub(super) fn message(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            ..Self::default()
        }
    }
}

/// Asks the agent; the answer comes on the event stream.
pub(super) async fn start_turn(
    endpoint: &Endpoint,
    session_id: &str,
    ask: &Ask,
    flags: &SessionFlags,
) -> Result<String, TurnRefused> {
    let params = StartTurnParams {
        text: ask.text.clone(),
        client: CLIENT.to_owned(),
        skill: ask.skill.clone(),
        prompt: ask.prompt.clone(),
        wait: false,
        env: session_client::key_env(flags),
    };
    let reply = endpoint
        .post(
            &format!("/v1/sessions/{session_id}/turns"),
            &params,
            REQUEST_TIMEOUT,
        )
        .await
        .map_err(TurnRefused::Failed)?;
    if reply.status == 409 {
        return Err(TurnRefused::Busy);
    }
    reply
        .json::<StartTurnResponse>()
        .map(|response| response.turn_id)
        .map_err(TurnRefused::Failed)
}

/// The next envelope of the stream; `None` when it closed. Waits forever without a stream.
pub(super) async fn next_envelope(socket: Option<&mut EventSocket>) -> Option<SessionEnvelope> {
    let Some(socket) = socket else {
        return std::future::pending().await;
    };
    while let Some(message) = socket.next().await {
        let Ok(message) = message else { return None };
        if message.is_close() {
            return None;
        }
        let Ok(text) = message.into_text() else {
            continue;
        };
        if let Ok(envelope) = serde_json::from_str::<SessionEnvelope>(&text) {
            return Some(envelope);
        }
    }
    None
}
