//! Drawing the charts of some cells in the kernel: the snippet that asks `hailer_kernel.charts`
//! for each cell's chart, and the reader for what it prints.

use serde::Deserialize;

use crate::code_mode::python_string_literal;
use crate::error::{Error, Result};

/// Printed before each chart's JSON.
const CHART_MARKER: &str = "hailer-chart:";

/// The line printed after the last chart.
pub(crate) const CHARTS_END: &str = "hailer-charts-end";

/// A cell's chart as the kernel drew it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrawnChart {
    /// The id of the cell whose output holds the chart, one of the ids that were asked for.
    pub cell_id: String,
    /// `altair` or `plotly`.
    pub library: String,
    /// The chart's title from its Vega or Vega-Lite spec or its Plotly layout; `None` when it
    /// has none.
    pub title: Option<String>,
    /// `None` when the chart could not be drawn: always for Plotly; for Altair when its data
    /// sits behind a URL, the renderer is missing or refuses the spec, or the PNG would pass
    /// 1 MiB.
    pub image: Option<DrawnPicture>,
}

/// A chart's picture.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DrawnPicture {
    /// `image/svg+xml`, or `image/png` when the SVG would have been too large.
    pub mimetype: String,
    /// The picture as a `data:<mimetype>;base64,...` URL.
    pub data_url: String,
    /// How long drawing took in the kernel, in milliseconds.
    pub render_ms: u64,
}

/// The kind of picture a chart is drawn as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PictureFormat {
    /// SVG, or PNG when the SVG would be too large: what the chat page shows best.
    Best,
    /// Always PNG: the picture every Model Context Protocol host can show (many do not take
    /// SVG).
    Png,
}

/// The snippet that prints the charts of the cells `cell_ids`, one JSON line each, drawn as
/// `format`.
pub(crate) fn draw_charts_code(cell_ids: &[String], format: PictureFormat) -> Result<String> {
    let ids = cell_ids
        .iter()
        .map(|id| python_string_literal(id))
        .collect::<Result<Vec<_>>>()?
        .join(", ");
    // `hailer_kernel.charts` draws a chart as PNG at once when it has more inline rows than
    // `SVG_ROWS`; below zero, every chart is drawn as PNG. The setting is put back afterwards.
    let svg_rows = match format {
        PictureFormat::Best => "_h_charts.SVG_ROWS",
        PictureFormat::Png => "-1",
    };
    Ok(format!(
        "import json as _h_json\n\
         import marimo._code_mode as _h_cm\n\
         from hailer_kernel import charts as _h_charts\n\
         _h_svg_rows = _h_charts.SVG_ROWS\n\
         _h_charts.SVG_ROWS = {svg_rows}\n\
         try:\n    \
         async with _h_cm.get_context() as _h_ctx:\n        \
         _h_outputs = {{_h_view.id: _h_view.output for _h_view in _h_ctx.cells}}\n        \
         for _h_id in [{ids}]:\n            \
         _h_out = _h_outputs.get(_h_id)\n            \
         _h_chart = None if _h_out is None else _h_charts.render(str(_h_out.mimetype), _h_out.data)\n            \
         if _h_chart is not None:\n                \
         _h_chart['cellId'] = _h_id\n                \
         print('{CHART_MARKER}' + _h_json.dumps(_h_chart))\n\
         finally:\n    \
         _h_charts.SVG_ROWS = _h_svg_rows\n\
         print('{CHARTS_END}')\n"
    ))
}

/// The charts a draw snippet printed, in order.
pub(crate) fn parse_charts(stdout: &str) -> Result<Vec<DrawnChart>> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix(CHART_MARKER))
        .map(|json| {
            serde_json::from_str(json.trim()).map_err(|e| Error::CodeMode {
                detail: format!("a chart could not be read: {e}"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn cell_ids_are_embedded_as_literals() {
        let ids = ["Hbol".to_owned(), "x']; import os #".to_owned()];
        let code = draw_charts_code(&ids, PictureFormat::Best).unwrap();
        assert!(
            code.contains("for _h_id in ['Hbol', 'x\\']; import os #']:"),
            "{code}"
        );
        assert!(code.contains("_h_charts.SVG_ROWS = _h_charts.SVG_ROWS\n"));
        assert!(code.ends_with("print('hailer-charts-end')\n"));
        let png = draw_charts_code(&ids, PictureFormat::Png).unwrap();
        assert!(png.contains("_h_charts.SVG_ROWS = -1\n"), "{png}");
        assert!(png.contains("_h_charts.SVG_ROWS = _h_svg_rows\n"), "{png}");
    }

    #[test]
    fn charts_parse_with_and_without_pictures() {
        let out = "noise\n\
            hailer-chart:{\"library\": \"altair\", \"title\": \"Sales\", \"image\": {\"mimetype\": \
            \"image/svg+xml\", \"dataUrl\": \"data:image/svg+xml;base64,PHN2Zz4=\", \"renderMs\": 12}, \
            \"cellId\": \"Hbol\"}\n\
            hailer-chart:{\"library\": \"plotly\", \"title\": null, \"image\": null, \"cellId\": \"MJUe\"}\n\
            hailer-charts-end\n";
        let charts = parse_charts(out).unwrap();
        assert_eq!(charts.len(), 2);
        assert_eq!(charts[0].title.as_deref(), Some("Sales"));
        assert_eq!(charts[0].image.as_ref().unwrap().render_ms, 12);
        assert_eq!(charts[1].cell_id, "MJUe");
        assert!(charts[1].image.is_none());
        assert!(parse_charts("hailer-chart:{").is_err());
        assert!(parse_charts("nothing").unwrap().is_empty());
    }
}
