//! `/v1/sessions/{id}/skills` and `/prompts`: what `/skill` and `/prompt` can name, for clients
//! that offer completion. Read from disk on every request.

use axum::Json;
use axum::extract::{Path, State};
use hailer_protocol::{PromptList, SkillEntry, SkillList};

use super::error::ApiError;
use crate::daemon_state::Daemon;

#[utoipa::path(
    get, path = "/v1/sessions/{id}/skills", operation_id = "listSkills", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = SkillList), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn skills(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
) -> Result<Json<SkillList>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let skills = hailer_tools::discover_skills(&session.loaded().config.hailer.skills_dir)
        .into_iter()
        .map(|skill| SkillEntry {
            name: skill.name,
            folder: skill.folder,
            description: skill.description,
        })
        .collect();
    Ok(Json(SkillList { skills }))
}

#[utoipa::path(
    get, path = "/v1/sessions/{id}/prompts", operation_id = "listPrompts", tag = "turns",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, body = PromptList), (status = 404, body = hailer_protocol::ErrorBody)),
    security(("bearer" = []))
)]
pub(super) async fn prompts(
    State(daemon): State<Daemon>,
    Path(id): Path<String>,
) -> Result<Json<PromptList>, ApiError> {
    let session = daemon.sessions.get(&id).await?;
    let prompts = hailer_tools::prompt_names(&session.loaded().config.hailer.prompts_dir);
    Ok(Json(PromptList { prompts }))
}
