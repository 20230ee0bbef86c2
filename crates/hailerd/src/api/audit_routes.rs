//! `/v1/sessions/{id}/audit`: the audit trail's records of one session, for the page's panel.

use axum::Json;
use axum::extract::{Path, State};
use hailer_protocol::AuditList;

use super::error::ApiError;
use crate::daemon_state::Daemon;

#[utoipa::path(
    get, path = "/v1/sessions/{id}/audit", operation_id = "listAuditRecords", tag = "sessions",
    params(("id" = String, Path, description = "Session id")),
    responses(
        (status = 200, body = AuditList, description = "The session's records, oldest first; none when `[hailer] audit = false`"),
        (status = 404, body = hailer_protocol::ErrorBody)
    ),
    security(("bearer" = []))
)]
pub(super) async fn list(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
) -> Result<Json<AuditList>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    Ok(Json(AuditList {
        entries: session.audit.session_entries().await,
    }))
}
