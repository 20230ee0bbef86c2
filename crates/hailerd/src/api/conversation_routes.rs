//! `/v1/sessions/{id}/conversation`: a new conversation on a live session.

use axum::Json;
use axum::extract::{Path, State};
use hailer_protocol::{ConversationStarted, NewConversationParams};

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::daemon_state::Daemon;

/// Starts a new conversation. With `model` null, the stored conversation is deleted and its
/// counters start again; with a model, that model answers for the rest of the session in a new
/// conversation (the earlier one is kept; the next session uses the configured model again).
/// Every attached client gets a `conversationStarted` event.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/conversation", operation_id = "newConversation", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    request_body = NewConversationParams,
    responses(
        (status = 200, body = ConversationStarted),
        (status = 400, description = "A bad model name, a provider the configuration does not declare (the message lists those it does), or no key for the provider", body = hailer_protocol::ErrorBody),
        (status = 404, body = hailer_protocol::ErrorBody),
        (status = 409, description = "A turn is running", body = hailer_protocol::ErrorBody),
        (status = 424, description = "The agent cannot answer in this session", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn start(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    JsonBody(params): JsonBody<NewConversationParams>,
) -> Result<Json<ConversationStarted>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let agent = super::sessions::agent_of(&session)?;
    let _busy = session.busy();
    Ok(Json(agent.new_conversation(&session, params).await?))
}
