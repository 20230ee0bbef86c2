//! `/v1/events`: the daemon's WebSocket event stream.

use axum::extract::State;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use hailer_protocol::{DaemonEvent, EventEnvelope, WS_PROTOCOL};
use tokio::sync::broadcast::error::RecvError;

use crate::state::Daemon;

/// Upgrades to a stream of JSON `EventEnvelope`s: `hello` first, then heartbeats and daemon
/// events; `shuttingDown` last.
#[utoipa::path(
    get,
    path = "/v1/events",
    tag = "events",
    responses(
        (status = 101, description = "WebSocket of JSON event envelopes", body = EventEnvelope),
        (status = 401, description = "Missing or wrong token", body = hailer_protocol::ErrorBody),
        (status = 403, description = "Foreign Host or Origin", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn subscribe(State(daemon): State<Daemon>, upgrade: WebSocketUpgrade) -> Response {
    upgrade
        .protocols([WS_PROTOCOL])
        .on_upgrade(move |socket| stream_events(daemon, socket))
}

async fn stream_events(daemon: Daemon, mut socket: WebSocket) {
    let _client = daemon.client_connected();
    let mut events = daemon.events.subscribe();
    let hello = EventEnvelope {
        seq: 0,
        at: crate::clock::unix_now(),
        event: DaemonEvent::Hello {
            version: crate::VERSION.to_owned(),
            pid: daemon.pid,
        },
    };
    if send(&mut socket, &hello).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            received = events.recv() => match received {
                Ok(envelope) => {
                    let last = matches!(envelope.event, DaemonEvent::ShuttingDown { .. });
                    if send(&mut socket, &envelope).await.is_err() || last {
                        break;
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    let lagged = EventEnvelope {
                        seq: 0,
                        at: crate::clock::unix_now(),
                        event: DaemonEvent::Lagged { missed },
                    };
                    if send(&mut socket, &lagged).await.is_err() {
                        break;
                    }
                }
                Err(RecvError::Closed) => break,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            () = daemon.shutdown.cancelled() => {
                // The shutdown event was published before cancelling; drain it if still queued.
                while let Ok(envelope) = events.try_recv() {
                    if send(&mut socket, &envelope).await.is_err() {
                        break;
                    }
                }
                break;
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}

async fn send(socket: &mut WebSocket, envelope: &EventEnvelope) -> Result<(), axum::Error> {
    let text = serde_json::to_string(envelope).map_err(axum::Error::new)?;
    socket.send(Message::Text(Utf8Bytes::from(text))).await
}
