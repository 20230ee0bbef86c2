//! Charts a turn made, rendered to images in the kernel so every client can show them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One chart: where it lives in the notebook, and its picture when the kernel could render it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Chart {
    /// Unique within the session.
    pub id: String,
    /// The chart's own title, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The library that made it (`altair`, `plotly`).
    pub library: String,
    /// The cell whose output it is: its name when it has one, else its id.
    pub cell: String,
    /// The cell's id (marimo's, valid while the notebook is open).
    pub cell_id: String,
    /// The notebook, relative to the workspace.
    pub notebook: String,
    /// The picture: `image/svg+xml` or `image/png`, unset when it could not be rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ChartImage>,
}

/// A rendered chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChartImage {
    /// `image/svg+xml` or `image/png`.
    pub mimetype: String,
    /// The picture as a `data:` URL.
    pub data_url: String,
    /// Milliseconds the kernel took to render it.
    pub render_ms: u64,
}
