//! `/v1/sessions/{id}/events`: attach to a session and follow it live.

use axum::extract::ws::WebSocket;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use hailer_protocol::{SessionEnvelope, SessionEvent};
use serde::Deserialize;

use super::error::ApiError;
use super::ws_stream::{forward, send, send_encoded};
use super::ws_upgrade::Upgrade;
use crate::daemon_state::Daemon;

/// Where a reconnecting client left off.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct Resume {
    /// The last sequence number the client received: the events after it that the session
    /// still keeps come first, each once. Without it (or when they are no longer kept), the
    /// running turn's events so far come first.
    after: Option<u64>,
}

/// Attaches to the session: `attached` first (the session as it is), then, unless resuming, the
/// conversation so far (`history`), then its events in order.
/// While a client is attached the session does not linger out.
#[utoipa::path(
    get, path = "/v1/sessions/{id}/events", operation_id = "followSessionEvents", tag = "sessions",
    params(("id" = String, Path, description = "Session id"), Resume),
    responses(
        (status = 101, description = "WebSocket of JSON session envelopes", body = SessionEnvelope),
        (status = 404, body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn subscribe(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    Query(resume): Query<Resume>,
    Upgrade(upgrade): Upgrade,
) -> Result<Response, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(upgrade.on_upgrade(move |socket| follow(daemon, session, resume, socket)))
}

async fn follow(
    daemon: Daemon,
    session: std::sync::Arc<hailerd_session::Session>,
    resume: Resume,
    mut socket: WebSocket,
) {
    let _daemon_client = daemon.client_connected();
    let _attached = session.attach();
    let caught_up = resume
        .after
        .map(|after| (after, session.events.subscribe_after(after)));
    let (mut events, history, replay, already_sent) = match caught_up {
        Some((after, (events, Some(missed)))) => {
            let last = missed.last().map_or(after, |shared| shared.envelope.seq);
            (events, None, missed, last)
        }
        _ => {
            let (events, history, replay) = session.subscribe_with_replay();
            let last = replay.last().map_or(0, |shared| shared.envelope.seq);
            (events, Some(history), replay, last)
        }
    };
    let first = SessionEnvelope {
        seq: 0,
        at: hailerd_kernel::unix_now(),
        event: SessionEvent::Attached {
            session: Box::new(session.info().await),
        },
    };
    if send(&mut socket, &first).await.is_err() {
        return;
    }
    if let Some(history) = history {
        let past = SessionEnvelope {
            seq: 0,
            at: first.at,
            event: SessionEvent::History {
                turns: history.as_ref().clone(),
            },
        };
        if send(&mut socket, &past).await.is_err() {
            return;
        }
    }
    for shared in &replay {
        if send_encoded(&mut socket, &shared.json).await.is_err() {
            return;
        }
    }
    // A session's stream ends with its `stopped` event, not on the daemon's shutdown signal:
    // a stopping daemon stops every session first (a running turn ends as cancelled), and its
    // clients are told so once instead of finding the stream cut.
    forward(
        &mut socket,
        &mut events,
        already_sent,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await;
}
