//! `/v1/sessions/{id}/mcp`: the session's tools over the Model Context Protocol's Streamable
//! HTTP transport, served by rmcp. The route sits behind the same guards as every other: the
//! token, and the Host and Origin checks that the protocol's DNS-rebinding rule asks for
//! (`api::guard`), so rmcp's own host and origin lists stay off. Every POST is answered on its
//! own (rmcp's stateless mode, with plain JSON replies): the Hailer session is the state, so
//! there are no MCP sessions to keep, and `hailer mcp` can relay each message as one request.
//! A `notifications/cancelled` is the one message read here first: it stops the running call
//! it names (`cancel`).

mod cancel;
mod server;

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse as _, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::ApiError;
use crate::daemon_state::Daemon;

/// Answers one MCP message sent to the session `id`.
#[utoipa::path(
    post, path = "/v1/sessions/{id}/mcp", tag = "mcp", operation_id = "mcp_message",
    params(("id" = String, Path, description = "Session id")),
    request_body(
        content = Object, content_type = "application/json",
        description = "One JSON-RPC message of the Model Context Protocol (Streamable HTTP \
                       transport; send `Accept: application/json, text/event-stream`)"
    ),
    responses(
        (status = 200, description = "The JSON-RPC reply", body = Object),
        (status = 202, description = "A notification, taken"),
        (status = 404, body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn serve(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    // A cancellation is read here: rmcp, serving each message on its own, would drop it.
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, super::CODE_BODY)
        .await
        .map_err(|_| {
            ApiError::PayloadTooLarge(format!(
                "an MCP message may be at most {} bytes",
                super::CODE_BODY
            ))
        })?;
    if let Some(request) = cancel::cancelled_request(&body) {
        cancel::cancel(&session.id, &request);
        return Ok(StatusCode::ACCEPTED.into_response());
    }
    let request = Request::from_parts(parts, axum::body::Body::from(body));
    let weak = Arc::downgrade(&session);
    let service = StreamableHttpService::new(
        move || {
            Ok(server::SessionServer {
                session: weak.clone(),
            })
        },
        Arc::new(NeverSessionManager::default()),
        config(),
    );
    let response = service.handle(request).await;
    Ok(response.map(axum::body::Body::new))
}

/// Stateless, JSON replies, a body no larger than code to run may be, and no host or origin
/// lists of rmcp's own (the router's guards check both first).
fn config() -> StreamableHttpServerConfig {
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(super::CODE_BODY)
        .disable_allowed_hosts()
        .disable_allowed_origins()
}
