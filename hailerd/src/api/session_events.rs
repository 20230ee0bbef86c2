//! `/v1/sessions/{id}/events`: attach to a session and follow it live.

use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::Response;
use hailer_protocol::{SessionEnvelope, SessionEvent, WS_PROTOCOL};

use super::error::ApiError;
use super::ws_stream::{forward, send, send_encoded};
use crate::state::Daemon;

/// Attaches to the session: `attached` first (the session as it is), then its events in order.
/// While a client is attached the session does not linger out.
#[utoipa::path(
    get, path = "/v1/sessions/{id}/events", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses(
        (status = 101, description = "WebSocket of JSON session envelopes", body = SessionEnvelope),
        (status = 404, body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn subscribe(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(upgrade
        .protocols([WS_PROTOCOL])
        .on_upgrade(move |socket| follow(daemon, session, socket)))
}

async fn follow(
    daemon: Daemon,
    session: std::sync::Arc<crate::session::Session>,
    mut socket: WebSocket,
) {
    let _daemon_client = daemon.client_connected();
    let _attached = session.attach();
    let (mut events, replay) = session.subscribe_with_replay();
    let replayed_up_to = replay.last().map_or(0, |shared| shared.envelope.seq);
    let first = SessionEnvelope {
        seq: 0,
        at: crate::clock::unix_now(),
        event: SessionEvent::Attached {
            session: session.info().await,
        },
    };
    if send(&mut socket, &first).await.is_err() {
        return;
    }
    for shared in &replay {
        if send_encoded(&mut socket, &shared.json).await.is_err() {
            return;
        }
    }
    forward(&mut socket, &mut events, replayed_up_to, &daemon.shutdown).await;
}
