//! `/v1/status`: everything `hailer status` prints, in one reply, so the command costs one
//! round-trip and never waits for the Docker engine (its status comes as last found).

use axum::Json;
use axum::extract::State;
use hailer_protocol::{StatusParams, StatusReport};

use super::error::ApiError;
use super::json_body::JsonBody;
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
) -> Result<Json<StatusReport>, ApiError> {
    refuse_malformed(&params)?;
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
        hailerd_agent::check_model(&params.session, &daemon.config.folders.config, live).await
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
        Err(error) => (None, Some(ApiError::from(error).body().said())),
    };
    Ok(Json(StatusReport {
        daemon: super::daemon_routes::describe(&daemon).await,
        sessions,
        model_check,
        model_check_error,
        docker,
    }))
}

/// A request outside the documented shape is refused (400), not judged: the model judgement's
/// own refusals are part of the report.
fn refuse_malformed(params: &StatusParams) -> Result<(), ApiError> {
    let session = &params.session;
    if !std::path::Path::new(&session.cwd).is_absolute() {
        return Err(ApiError::BadRequest(
            "session.cwd must be an absolute path".to_owned(),
        ));
    }
    if let Some(kernel) = &session.kernel
        && !["docker", "sandbox", "unsafe-local"].contains(&kernel.as_str())
    {
        return Err(ApiError::BadRequest(
            "session.kernel must be docker, sandbox or unsafe-local".to_owned(),
        ));
    }
    if session
        .exec_timeout_secs
        .is_some_and(|secs| !(1..=86_400).contains(&secs))
    {
        return Err(ApiError::BadRequest(
            "session.execTimeoutSecs must be between 1 and 86400".to_owned(),
        ));
    }
    Ok(())
}
