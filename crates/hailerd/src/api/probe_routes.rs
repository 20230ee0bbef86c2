//! `POST /v1/sessions/{id}/probe`: `hailer doctor --probe`, run and graded by the daemon.

use axum::Json;
use axum::extract::{Path, State};
use hailer_protocol::{ProbeParams, ProbeReport};

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::daemon_state::Daemon;

/// Tests the session kernel's isolation from outside it: the probes run in a fresh process
/// started like the kernel (for docker, a new container from its image and settings), and
/// the daemon grades what they observed, with what the engine says the container has.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/probe", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = ProbeParams,
    responses(
        (status = 200, body = ProbeReport),
        (status = 400, description = "A token path holds a NUL character", body = hailer_protocol::ErrorBody),
        (status = 502, description = "The probes could not run", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The kernel could not start", body = hailer_protocol::ErrorBody),
        (status = 409, description = "The session is stopping", body = hailer_protocol::ErrorBody),
        (status = 504, description = "The kernel did not become ready in time", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn probe(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<ProbeParams>,
) -> Result<Json<ProbeReport>, ApiError> {
    if params.token_paths.iter().any(|path| path.contains('\0')) {
        return Err(ApiError::BadRequest(
            "a token path contains a NUL character, which no file name can hold".to_owned(),
        ));
    }
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(session.probe(&params).await?))
}
