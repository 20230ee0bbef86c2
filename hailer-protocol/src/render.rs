use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/render`: turn the agent's Markdown into HTML that is safe to show in a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenderParams {
    pub markdown: String,
}

/// Sanitised HTML: no scripts, no event handlers, no `javascript:` links, no styles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenderResponse {
    pub html: String,
}
