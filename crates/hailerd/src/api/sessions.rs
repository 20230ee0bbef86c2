//! `/v1/sessions`: start or attach, list, inspect, stop, run code, manage notebooks.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use hailer_protocol::{
    CancelResponse, CreateNotebookParams, ExecParams, ExecResponse, MAX_EXEC_TIMEOUT_SECS,
    NewConversationParams, NotebookChange, NotebookList, NotebookRef, SessionInfo, SessionList,
    StartSessionParams, StartSessionResponse, StartTurnParams, StartTurnResponse,
};

use super::error::ApiError;
use super::json_body::{JsonBody, NoBody};
use super::turn_follow::{TurnFollower, wants_event_stream};
use crate::daemon_state::Daemon;

/// The most code one exec may carry.
const MAX_CODE_BYTES: usize = 1024 * 1024;

/// Starts the workspace's session, or attaches to the live one. The kernel starts in the
/// background: watch the session's events, or just send code (it waits for the kernel).
/// `newThread` on a live session starts its conversation again (refused with 409 while a turn
/// runs).
#[utoipa::path(
    post, path = "/v1/sessions", operation_id = "startSession", tag = "sessions",
    request_body = StartSessionParams,
    responses(
        (status = 200, body = StartSessionResponse),
        (status = 400, body = hailer_protocol::ErrorBody),
        (status = 409, description = "`newThread` while a turn runs in the live session, or the user must agree first (`consent_required`)", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn start(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<StartSessionParams>,
) -> Result<Json<StartSessionResponse>, ApiError> {
    let (session, attached) = daemon.sessions.start_or_attach(&params).await?;
    // `--new` on a session that already runs: its conversation starts again, as a new session's
    // would.
    if attached
        && params.new_thread
        && let Some(agent) = hailerd_agent::of(&session)
    {
        let fresh = NewConversationParams {
            model: None,
            client: params.client.clone(),
            env: params.env.clone(),
        };
        agent.new_conversation(&session, fresh).await?;
    }
    Ok(Json(StartSessionResponse {
        session: session.info().await,
        attached,
    }))
}

#[utoipa::path(
    get, path = "/v1/sessions", operation_id = "listSessions", tag = "sessions",
    responses((status = 200, body = SessionList)),
    security(("bearer" = []))
)]
pub(super) async fn list(State(daemon): State<Daemon>) -> Json<SessionList> {
    let mut sessions = Vec::new();
    for session in daemon.sessions.all().await {
        sessions.push(session.info().await);
    }
    Json(SessionList { sessions })
}

#[utoipa::path(
    get, path = "/v1/sessions/{id}", operation_id = "getSession", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = SessionInfo), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn get(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
) -> Result<Json<SessionInfo>, ApiError> {
    Ok(Json(daemon.sessions.get(&id).await?.info().await))
}

/// Stops the session: its kernel ends, attached clients are told.
#[utoipa::path(
    delete, path = "/v1/sessions/{id}", operation_id = "stopSession", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = SessionInfo), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn stop(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    _: NoBody,
) -> Result<Json<SessionInfo>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    daemon.sessions.stop(&id, "stopped through the API").await?;
    Ok(Json(session.info().await))
}

/// Runs code in the active (or named) notebook's kernel, for a person: nothing of it reaches
/// the model.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/exec", operation_id = "execCode", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    request_body = ExecParams,
    responses(
        (status = 200, body = ExecResponse),
        (status = 400, body = hailer_protocol::ErrorBody),
        (status = 502, description = "The kernel failed or was restarted", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The kernel could not start", body = hailer_protocol::ErrorBody),
        (status = 409, description = "The session is stopping", body = hailer_protocol::ErrorBody),
        (status = 504, description = "The kernel did not become ready in time", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn exec(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<ExecParams>,
) -> Result<Json<ExecResponse>, ApiError> {
    if params.code.len() > MAX_CODE_BYTES {
        return Err(ApiError::BadRequest(format!(
            "the code is {} bytes; at most {MAX_CODE_BYTES} are accepted",
            params.code.len()
        )));
    }
    check_timeout(params.timeout_secs)?;
    if params.code.contains('\0') {
        return Err(ApiError::BadRequest(
            "the code contains a NUL character, which Python source cannot hold".to_owned(),
        ));
    }
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(session.exec(&params).await?))
}

/// A run's time limit within 1 second and [`MAX_EXEC_TIMEOUT_SECS`].
fn check_timeout(timeout_secs: Option<u64>) -> Result<(), ApiError> {
    match timeout_secs {
        Some(secs) if !(1..=MAX_EXEC_TIMEOUT_SECS).contains(&secs) => {
            Err(ApiError::BadRequest(format!(
                "timeoutSecs is {secs}; it must be from 1 to {MAX_EXEC_TIMEOUT_SECS} seconds \
                 (one day), or left out for the default"
            )))
        }
        _ => Ok(()),
    }
}

#[utoipa::path(
    get, path = "/v1/sessions/{id}/notebooks", operation_id = "listNotebooks", tag = "notebooks",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = NotebookList)),
    security(("bearer" = []))
)]
pub(super) async fn notebooks(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
) -> Result<Json<NotebookList>, ApiError> {
    Ok(Json(daemon.sessions.get(&id).await?.list_notebooks().await))
}

#[utoipa::path(
    post, path = "/v1/sessions/{id}/notebooks", operation_id = "createNotebook", tag = "notebooks",
    params(("id" = String, Path, description = "Session id")),
    request_body = CreateNotebookParams,
    responses((status = 200, body = NotebookChange), (status = 409, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn create_notebook(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<CreateNotebookParams>,
) -> Result<Json<NotebookChange>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(session.create_notebook(&params).await?))
}

#[utoipa::path(
    post, path = "/v1/sessions/{id}/notebooks/open", operation_id = "openNotebook", tag = "notebooks",
    params(("id" = String, Path, description = "Session id")),
    request_body = NotebookRef,
    responses((status = 200, body = NotebookChange), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn open_notebook(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<NotebookRef>,
) -> Result<Json<NotebookChange>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(session.open_notebook(&params.notebook).await?))
}

#[utoipa::path(
    post, path = "/v1/sessions/{id}/notebooks/close", operation_id = "closeNotebook", tag = "notebooks",
    params(("id" = String, Path, description = "Session id")),
    request_body = NotebookRef,
    responses((status = 200, body = NotebookChange), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn close_notebook(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<NotebookRef>,
) -> Result<Json<NotebookChange>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(session.close_notebook(&params.notebook).await?))
}

/// Sends the user's message to the agent; one turn at a time. By default it answers as soon as
/// the turn has begun, and the answer streams on the session's events. With `"wait": true` it
/// answers when the turn ends, with the whole turn (`result`). With `Accept: text/event-stream`
/// the reply is the turn's events as server-sent events (each `data:` an envelope as the
/// session's WebSocket sends it, each `id:` its sequence number), ending with the turn's last
/// event. A client that goes away does not stop the turn: cancel it with `/cancel`.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/turns", tag = "turns", operation_id = "startTurn",
    params(("id" = String, Path, description = "Session id")),
    request_body = StartTurnParams,
    responses(
        (status = 200, description = "The turn began (or, with `wait`, ended: see `result`); with `Accept: text/event-stream`, its events", content(
            (StartTurnResponse = "application/json"),
            (String = "text/event-stream"),
        )),
        (status = 404, description = "No such session", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The named skill or prompt does not exist (`unknown_name`; the hint lists those that do)", body = hailer_protocol::ErrorBody),
        (status = 409, description = "A turn is running", body = hailer_protocol::ErrorBody),
        (status = 424, description = "The agent cannot answer (no key, bad provider)", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn start_turn(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(params): JsonBody<StartTurnParams>,
) -> Result<Response, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let agent = agent_of(&session)?;
    let text = hailerd_agent::turn_message(&session.loaded().config, &params)?;
    let client = if params.client.is_empty() {
        "api".to_owned()
    } else {
        params.client
    };
    // Subscribed before the turn starts, so none of its events is missed.
    let follower = (params.wait || wants_event_stream(&headers))
        .then(|| TurnFollower::subscribe(std::sync::Arc::clone(&session)));
    // The turn uses the key of the client that sent it; the session keeps it for later turns.
    session.remember_keys(&params.env);
    let turn_id = agent.start_turn(&session, text, client).await?;
    let Some(follower) = follower else {
        return Ok(Json(StartTurnResponse {
            turn_id,
            result: None,
        })
        .into_response());
    };
    if wants_event_stream(&headers) {
        return Ok(follower.into_event_stream(turn_id).into_response());
    }
    let result = follower.wait(&turn_id).await;
    Ok(Json(StartTurnResponse {
        turn_id,
        result: Some(result),
    })
    .into_response())
}

/// Cancels the running turn: the model request stops at once and running code is interrupted.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/cancel", operation_id = "cancelTurn", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = CancelResponse)),
    security(("bearer" = []))
)]
pub(super) async fn cancel(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    _: NoBody,
) -> Result<Json<CancelResponse>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let cancelled = hailerd_agent::of(&session).is_some_and(|agent| agent.cancel());
    Ok(Json(CancelResponse { cancelled }))
}

/// The session's agent, or a 404 when it has none.
pub(super) fn agent_of(
    session: &hailerd_session::Session,
) -> Result<std::sync::Arc<hailerd_agent::Agent>, ApiError> {
    hailerd_agent::of(session)
        .ok_or_else(|| ApiError::NotFound("the session has no agent".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse;

    #[test]
    fn exec_time_limits_outside_the_range_are_refused() {
        let cases = [
            (None, true),
            (Some(1), true),
            (Some(300), true),
            (Some(MAX_EXEC_TIMEOUT_SECS), true),
            (Some(0), false),
            (Some(MAX_EXEC_TIMEOUT_SECS + 1), false),
            (Some(1 << 63), false),
            (Some(u64::MAX), false),
        ];
        for (timeout, accepted) in cases {
            match check_timeout(timeout) {
                Ok(()) => assert!(accepted, "{timeout:?} was accepted"),
                Err(error) => {
                    assert!(!accepted, "{timeout:?} was refused");
                    let message = error.to_string();
                    assert!(message.contains("from 1 to 86400"), "{message}");
                    assert_eq!(error.into_response().status(), 400);
                }
            }
        }
    }
}
