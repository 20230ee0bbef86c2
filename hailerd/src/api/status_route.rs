//! `/v1/status`: everything `hailer status` prints, in one reply, so the command costs one
//! round-trip and never waits for the Docker engine (its status comes as last found).

use axum::Json;
use axum::extract::State;
use hailer_protocol::{StatusParams, StatusReport};

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::agent::model_check;
use crate::daemon_state::Daemon;

/// The daemon, its sessions, whether the asking shell's session could reach its model, and
/// the Docker engine and kernel image as the daemon last found them (a few seconds old at
/// most while asked for).
#[utoipa::path(
    post, path = "/v1/status", operation_id = "getStatus", tag = "daemon",
    request_body = StatusParams,
    responses(
        (status = 200, body = StatusReport),
        (status = 400, description = "Malformed request", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn status(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<StatusParams>,
) -> Json<StatusReport> {
    let docker = async {
        match &params.image {
            Some(image) => Some(daemon.docker.get(image).await),
            None => None,
        }
    };
    let judged = async {
        let mut live = Vec::new();
        for session in daemon.sessions.all().await {
            live.push((session.workspace().to_path_buf(), session.client_env()));
        }
        model_check::check(&params.session, &daemon.config.folders.config, live).await
    };
    let listed = async {
        let mut sessions = Vec::new();
        for session in daemon.sessions.all().await {
            sessions.push(session.info().await);
        }
        sessions
    };
    let (docker, judged, sessions) = tokio::join!(docker, judged, listed);
    let (model_check, model_check_error) = match judged {
        Ok(check) => (Some(check), None),
        Err(error) => (None, Some(said(&ApiError::from(error)))),
    };
    Json(StatusReport {
        daemon: super::daemon_routes::describe(&daemon).await,
        sessions,
        model_check,
        model_check_error,
        docker,
    })
}

/// The error's message, and its hint on a line of its own when it does not carry it already.
fn said(error: &ApiError) -> String {
    let body = error.body();
    let message = body.message.trim_end();
    match body
        .hint
        .as_deref()
        .map(str::trim)
        .filter(|hint| !hint.is_empty())
    {
        Some(hint) if !message.contains(hint) => format!("{message}\n  {hint}"),
        _ => message.to_owned(),
    }
}
