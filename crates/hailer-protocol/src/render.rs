use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /v1/render`: turn the agent's Markdown into HTML that is safe to show in a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RenderParams {
    /// The Markdown text, at most 1 MiB (larger is refused with 413) and at most 32 levels of
    /// nesting (deeper is refused with 422).
    pub markdown: String,
}

/// Sanitised HTML: no scripts, no event handlers, no `javascript:` links, no styles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenderResponse {
    /// The rendered HTML fragment (no `<html>` or `<body>`): only harmless tags and attributes,
    /// no images, and links only to `http`, `https` and `mailto`.
    pub html: String,
}
