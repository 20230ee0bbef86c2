//! `/v1/daemon`: what the daemon is, and how to stop it.

use axum::Json;
use axum::extract::State;
use hailer_protocol::{DaemonInfo, ShutdownResponse};

use super::json_body::NoBody;
use crate::daemon_state::Daemon;

/// The daemon's identity and counters.
#[utoipa::path(
    get,
    path = "/v1/daemon",
    operation_id = "getDaemon",
    tag = "daemon",
    responses(
        (status = 200, description = "The daemon's identity and counters", body = DaemonInfo),
        (status = 401, description = "Missing or wrong token", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn info(State(daemon): State<Daemon>) -> Json<DaemonInfo> {
    Json(describe(&daemon).await)
}

/// The daemon's identity and counters now.
pub(super) async fn describe(daemon: &Daemon) -> DaemonInfo {
    DaemonInfo {
        version: crate::VERSION.to_owned(),
        pid: daemon.pid,
        port: daemon.port,
        started_at: daemon.started_at,
        uptime_secs: daemon.uptime().as_secs(),
        sessions: daemon.sessions.count().await,
        clients: daemon.clients(),
        idle_exit_secs: daemon.config.idle_exit.map_or(0, |idle| idle.as_secs()),
    }
}

/// Stops the daemon: clients are told, sessions end, the runtime file goes.
#[utoipa::path(
    post,
    path = "/v1/daemon/shutdown",
    operation_id = "shutdownDaemon",
    tag = "daemon",
    responses(
        (status = 200, description = "The daemon is stopping", body = ShutdownResponse),
        (status = 401, description = "Missing or wrong token", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn shutdown(State(daemon): State<Daemon>, _: NoBody) -> Json<ShutdownResponse> {
    daemon.request_shutdown("asked through the API");
    Json(ShutdownResponse { stopping: true })
}
