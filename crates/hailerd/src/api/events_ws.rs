//! `/v1/events`: the daemon's WebSocket event stream.

use axum::extract::State;
use axum::extract::ws::WebSocket;
use axum::response::Response;
use hailer_protocol::{DaemonEvent, EventEnvelope};

use super::ws_stream::{forward, send};
use super::ws_upgrade::Upgrade;
use crate::daemon_state::Daemon;

/// Upgrades to a stream of JSON `EventEnvelope`s: `hello` first, then heartbeats and daemon
/// events; `shuttingDown` last.
#[utoipa::path(
    get,
    path = "/v1/events",
    operation_id = "followDaemonEvents",
    tag = "events",
    responses(
        (status = 101, description = "WebSocket of JSON event envelopes", body = EventEnvelope),
        (status = 401, description = "Missing or wrong token", body = hailer_protocol::ErrorBody),
        (status = 403, description = "Foreign Host or Origin", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn subscribe(State(daemon): State<Daemon>, Upgrade(upgrade): Upgrade) -> Response {
    upgrade.on_upgrade(move |socket| stream_events(daemon, socket))
}

async fn stream_events(daemon: Daemon, mut socket: WebSocket) {
    let _client = daemon.client_connected();
    let mut events = daemon.events.subscribe();
    let hello = EventEnvelope {
        seq: 0,
        at: hailerd_kernel::unix_now(),
        event: DaemonEvent::Hello {
            version: crate::VERSION.to_owned(),
            pid: daemon.pid,
        },
    };
    if send(&mut socket, &hello).await.is_err() {
        return;
    }
    forward(&mut socket, &mut events, 0, &daemon.shutdown).await;
}
