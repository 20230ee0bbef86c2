//! The charts that code mode's cells show after a `marimo_execute`: drawn in the kernel and sent
//! to every client next to the answer.

use std::path::Path;

use hailer_marimo::{CellSnapshot, DrawnChart, DrawnPicture, PictureFormat};
use hailer_protocol::{Chart, ChartImage};

use hailerd_kernel::Kernel;
use hailerd_session::Session;

/// The most charts drawn for one call; the rest stay in the notebook.
const MAX_CHARTS_PER_CALL: usize = 8;

/// Draws the charts of `cells` and sends them to the session's clients as made by the call
/// `call_id`; returns one line per chart for the tool's result, so the model knows what the
/// user sees. A client's own call (`in_turn` false: another agent over MCP) gets PNG pictures,
/// which every MCP host can show; a turn's charts are SVG where they can be.
pub(super) async fn publish(
    session: &Session,
    kernel: &Kernel,
    notebook: &Path,
    cells: &[CellSnapshot],
    call_id: &str,
    in_turn: bool,
) -> Vec<String> {
    if cells.is_empty() {
        return Vec::new();
    }
    let ids: Vec<String> = cells
        .iter()
        .take(MAX_CHARTS_PER_CALL)
        .map(|cell| cell.id.clone())
        .collect();
    let format = if in_turn {
        PictureFormat::Best
    } else {
        PictureFormat::Png
    };
    let drawn = match kernel.draw_charts(notebook, &ids, format).await {
        Ok(drawn) => drawn,
        Err(error) => {
            tracing::warn!(%error, "the charts could not be drawn");
            return Vec::new();
        }
    };
    let notebook = kernel.relative_name(notebook);
    drawn
        .into_iter()
        .map(|drawn| {
            let chart = chart_of(drawn, cells, &notebook);
            let line = shown_line(&chart);
            session.publish_chart(call_id, chart, in_turn);
            line
        })
        .collect()
}

fn chart_of(drawn: DrawnChart, cells: &[CellSnapshot], notebook: &str) -> Chart {
    let cell = cells
        .iter()
        .find(|cell| cell.id == drawn.cell_id)
        .and_then(CellSnapshot::given_name)
        .unwrap_or(&drawn.cell_id)
        .to_owned();
    Chart {
        id: String::new(),
        title: drawn.title,
        library: drawn.library,
        cell,
        cell_id: drawn.cell_id,
        notebook: notebook.to_owned(),
        image: drawn.image.filter(is_picture).map(|picture| ChartImage {
            mimetype: picture.mimetype,
            data_url: picture.data_url,
            render_ms: picture.render_ms,
        }),
    }
}

/// Whether `picture` is what clients may show: an SVG or PNG `data:` URL of its own type.
fn is_picture(picture: &DrawnPicture) -> bool {
    ["image/svg+xml", "image/png"].contains(&picture.mimetype.as_str())
        && picture
            .data_url
            .strip_prefix("data:")
            .and_then(|rest| rest.strip_prefix(picture.mimetype.as_str()))
            .is_some_and(|rest| rest.starts_with(";base64,"))
}

fn shown_line(chart: &Chart) -> String {
    let title = chart
        .title
        .as_deref()
        .map_or_else(String::new, |title| format!(" '{title}'"));
    if chart.image.is_some() {
        format!(
            "[Hailer] The user sees the chart{title} of cell {} next to your answer.",
            chart.cell
        )
    } else {
        format!(
            "[Hailer] The chart{title} of cell {} is in the notebook; the chat could not draw it.",
            chart.cell
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(id: &str, name: &str) -> CellSnapshot {
        CellSnapshot {
            id: id.to_owned(),
            name: name.to_owned(),
            chart: Some("f".to_owned()),
            ..CellSnapshot::default()
        }
    }

    #[test]
    fn only_svg_and_png_data_urls_of_their_own_type_are_pictures() {
        let picture = |mimetype: &str, data_url: &str| DrawnPicture {
            mimetype: mimetype.to_owned(),
            data_url: data_url.to_owned(),
            render_ms: 1,
        };
        assert!(is_picture(&picture(
            "image/svg+xml",
            "data:image/svg+xml;base64,PHN2Zz4="
        )));
        assert!(is_picture(&picture(
            "image/png",
            "data:image/png;base64,iVBO"
        )));
        for (mimetype, url) in [
            ("image/png", "data:image/svg+xml;base64,PHN2Zz4="),
            ("text/html", "data:text/html;base64,PHNjcmlwdD4="),
            ("image/png", "javascript:alert(1)"),
            ("image/png", "https://example.com/x.png"),
            ("image/svg+xml", "data:image/svg+xml,<svg onload=alert(1)>"),
        ] {
            assert!(!is_picture(&picture(mimetype, url)), "{mimetype} {url}");
        }
    }

    #[test]
    fn charts_name_their_cell_and_say_what_the_user_sees() {
        let cells = [cell("Hbol", "sales_chart"), cell("MJUe", "_")];
        let drawn = DrawnChart {
            cell_id: "Hbol".to_owned(),
            library: "altair".to_owned(),
            title: Some("Sales".to_owned()),
            image: Some(DrawnPicture {
                mimetype: "image/svg+xml".to_owned(),
                data_url: "data:image/svg+xml;base64,PHN2Zz4=".to_owned(),
                render_ms: 30,
            }),
        };
        let chart = chart_of(drawn, &cells, "analysis.py");
        assert_eq!(chart.cell, "sales_chart");
        assert_eq!(chart.notebook, "analysis.py");
        assert_eq!(
            shown_line(&chart),
            "[Hailer] The user sees the chart 'Sales' of cell sales_chart next to your answer."
        );
        let unnamed = DrawnChart {
            cell_id: "MJUe".to_owned(),
            library: "plotly".to_owned(),
            title: None,
            image: None,
        };
        let chart = chart_of(unnamed, &cells, "analysis.py");
        assert_eq!(chart.cell, "MJUe");
        assert_eq!(chart.cell_id, "MJUe");
        assert_eq!(
            shown_line(&chart),
            "[Hailer] The chart of cell MJUe is in the notebook; the chat could not draw it."
        );
    }
}
