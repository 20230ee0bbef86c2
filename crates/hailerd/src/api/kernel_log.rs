//! `/v1/sessions/{id}/kernel/log`: follow the session's kernel log, one line per message, with
//! the kernel's token and the daemon's secrets masked.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::mpsc;

use super::error::ApiError;
use super::ws_upgrade::Upgrade;
use crate::daemon_state::Daemon;

/// How many earlier lines come first unless the client asks otherwise.
const DEFAULT_TAIL: usize = 100;
/// The most earlier lines a client may ask for.
const MAX_TAIL: usize = 2000;

/// Where the log starts.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(super) struct LogQuery {
    /// How many of the lines already written come first (100 by default, at most 2000).
    tail: Option<usize>,
}

/// Follows the kernel's log (marimo's output) as it is written. Each text message is one line,
/// with the kernel's token shown as `<token>`. Waits while the kernel starts; the stream ends
/// when the kernel stops or ends.
#[utoipa::path(
    get, path = "/v1/sessions/{id}/kernel/log", operation_id = "followKernelLog", tag = "sessions",
    params(("id" = String, Path, description = "Session id"), LogQuery),
    responses(
        (status = 101, description = "WebSocket of text messages, one log line each"),
        (status = 404, body = hailer_protocol::ErrorBody),
        (status = 502, description = "The kernel failed", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The kernel could not start", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn follow(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    Query(query): Query<LogQuery>,
    Upgrade(upgrade): Upgrade,
) -> Result<Response, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let kernel = session.kernel().await?;
    let tail = query.tail.unwrap_or(DEFAULT_TAIL).min(MAX_TAIL);
    let Some(lines) = kernel.follow_log(tail).await else {
        return Err(hailerd_session::SessionError::Stopping.into());
    };
    Ok(upgrade.on_upgrade(move |socket| forward(daemon, lines, socket)))
}

async fn forward(daemon: Daemon, mut lines: mpsc::Receiver<String>, mut socket: WebSocket) {
    let _client = daemon.client_connected();
    let redactor = daemon.config.redactor.clone();
    loop {
        tokio::select! {
            line = lines.recv() => {
                let Some(line) = line else { break };
                let masked = redactor.redact(&line).into_owned();
                if socket.send(Message::Text(Utf8Bytes::from(masked))).await.is_err() {
                    return;
                }
            }
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            () = daemon.shutdown.cancelled() => break,
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}
