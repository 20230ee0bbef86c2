//! Turning marimo's rendered value of an expression into something a terminal can show.
//!
//! marimo renders even a scalar as HTML (`<pre class='text-xs'>42</pre>`). A value that is just
//! preformatted text becomes that text; a table becomes a text table; a chart becomes its title
//! and where to see it; anything else is named by its mimetype only.
//!
//! Why the daemon derives the text from marimo's rendering rather than asking the kernel for the
//! value's `repr()`: the rendering is what the run returns anyway, so this costs no second round
//! trip to the kernel, runs no code the user did not write (a second execute would also run in a
//! fresh scratchpad where the value no longer exists, so the user's code would have to be
//! rewritten to capture it), and works the same for every runtime. A marimo table carries its
//! rows as JSON (`data-data`, in column order) with the total row count (`data-total-rows`),
//! which is exactly what a text table needs; when marimo changes that shape, the value falls
//! back to naming its mimetype, as before. The agent's `marimo_execute` result and `hailer exec`
//! both read [`readable`], so they show the same text.

use hailer_protocol::ExecValue;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// The longest cell shown in a text table, in characters.
const CELL_CHARS: usize = 40;

/// The text form of a rendered value, when it has one.
pub(super) fn readable(mimetype: &str, data: &str) -> ExecValue {
    let text = if mimetype.contains("vegalite") {
        chart_text(data)
    } else {
        match mimetype {
            "text/plain" | "text/markdown" => data.to_owned(),
            "text/html" => plain_pre(data)
                .map(unescape_html)
                .or_else(|| table_text(data))
                .or_else(|| {
                    attribute(data, "data-spec").map(|spec| chart_text(&unescape_html(spec)))
                })
                .unwrap_or_default(),
            _ => String::new(),
        }
    };
    ExecValue {
        mimetype: mimetype.to_owned(),
        text,
    }
}

/// The inside of a lone `<pre ...>...</pre>` element.
fn plain_pre(html: &str) -> Option<&str> {
    let html = html.trim();
    let rest = html.strip_prefix("<pre")?;
    let (attributes, rest) = rest.split_once('>')?;
    if attributes.contains('<') {
        return None;
    }
    let inner = rest.strip_suffix("</pre>")?;
    (!inner.contains('<')).then_some(inner)
}

fn unescape_html(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&#92;", "\\")
        .replace("&amp;", "&")
}

/// The raw (still escaped) value of the first `name='...'` or `name="..."` attribute in `html`.
fn attribute<'a>(html: &'a str, name: &str) -> Option<&'a str> {
    let at = html.find(&format!(" {name}="))? + name.len() + 2;
    let rest = &html[at..];
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &rest[1..];
    rest.find(quote).map(|end| &rest[..end])
}

/// A `<marimo-table>` as a text table: its rows (those marimo sent, in column order) and how many
/// rows the whole table has.
fn table_text(html: &str) -> Option<String> {
    if !html.contains("<marimo-table") {
        return None;
    }
    let data = unescape_html(attribute(html, "data-data")?);
    // marimo encodes the rows as a JSON string holding JSON.
    let rows_json = match serde_json::from_str::<Value>(&data).ok()? {
        Value::String(inner) => inner,
        Value::Array(_) => data,
        _ => return None,
    };
    let rows: Vec<OrderedRow> = serde_json::from_str(&rows_json).ok()?;
    let total = attribute(html, "data-total-rows")
        .and_then(|total| unescape_html(total).trim_matches('"').parse::<usize>().ok())
        .unwrap_or(rows.len());
    let mut columns: Vec<String> = Vec::new();
    for row in &rows {
        for (name, _) in &row.0 {
            if !columns.contains(name) {
                columns.push(name.clone());
            }
        }
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|column| {
                    row.0
                        .iter()
                        .find(|(name, _)| name == column)
                        .map(|(_, value)| cell(value))
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    // Columns of numbers are right-aligned, as a data frame prints them.
    let numeric: Vec<bool> = columns
        .iter()
        .map(|column| {
            let values = rows
                .iter()
                .filter_map(|row| row.0.iter().find(|(name, _)| name == column))
                .map(|(_, value)| value);
            let mut any = false;
            for value in values {
                match value {
                    Value::Number(_) => any = true,
                    Value::Null => {}
                    _ => return false,
                }
            }
            any
        })
        .collect();
    Some(layout(&columns, &cells, &numeric, total))
}

/// Columns padded to their widest cell (numbers to the right), two spaces apart, a rule under
/// the header, and a line saying how many rows there are.
fn layout(columns: &[String], rows: &[Vec<String>], numeric: &[bool], total: usize) -> String {
    let width = |text: &str| text.chars().count();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(index, name)| {
            rows.iter()
                .map(|row| width(&row[index]))
                .chain([width(name)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths.iter().zip(numeric))
            .map(|(cell, (width, numeric))| {
                if *numeric {
                    format!("{cell:>width$}")
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(columns)];
    out.push(
        widths
            .iter()
            .map(|width| "-".repeat(*width))
            .collect::<Vec<_>>()
            .join("  "),
    );
    out.extend(rows.iter().map(|row| line(row)));
    let noun = |count: usize, one: &str, many: &str| {
        if count == 1 {
            format!("1 {one}")
        } else {
            format!("{count} {many}")
        }
    };
    let size = format!(
        "{} × {}",
        noun(total, "row", "rows"),
        noun(columns.len(), "column", "columns")
    );
    out.push(if rows.len() < total {
        format!("({size}; the first {} shown)", rows.len())
    } else {
        format!("({size})")
    });
    out.join("\n")
}

/// One cell's text: strings bare, everything else as JSON, on one line and capped.
fn cell(value: &Value) -> String {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Null => "null".to_owned(),
        other => other.to_string(),
    };
    let text = text.replace(['\n', '\r', '\t'], " ");
    if text.chars().count() > CELL_CHARS {
        let mut cut: String = text.chars().take(CELL_CHARS - 1).collect();
        cut.push('…');
        cut
    } else {
        text
    }
}

/// A Vega-Lite chart: its title, and that it shows in the notebook.
fn chart_text(spec: &str) -> String {
    let title = serde_json::from_str::<Value>(spec)
        .ok()
        .and_then(|spec| title_of(spec.get("title")?));
    let named = match title {
        Some(title) => format!("A chart, \"{title}\""),
        None => "An untitled chart".to_owned(),
    };
    format!(
        "{named} (Vega-Lite). Charts show in the notebook's page (`hailer open`); put the code \
         in a cell to keep it there."
    )
}

/// A Vega-Lite title: a string, lines, or an object with `text`.
fn title_of(title: &Value) -> Option<String> {
    match title {
        Value::String(text) => Some(text.clone()),
        Value::Array(lines) => Some(
            lines
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Value::Object(_) => title_of(title.get("text")?),
        _ => None,
    }
    .filter(|text| !text.trim().is_empty())
}

/// A JSON object with its keys in the order they came (the table's column order).
struct OrderedRow(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for OrderedRow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RowVisitor;
        impl<'de> Visitor<'de> for RowVisitor {
            type Value = OrderedRow;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table row as a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedRow, A::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry::<String, Value>()? {
                    fields.push(field);
                }
                Ok(OrderedRow(fields))
            }
        }
        deserializer.deserialize_map(RowVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_text_when_they_are_text() {
        let cases = [
            ("text/html", "<pre class='text-xs'>42</pre>", "42"),
            (
                "text/html",
                "<pre class=\"text-xs\">&#x27;a&#x27; &lt; b &amp;&amp; c</pre>",
                "'a' < b && c",
            ),
            ("text/plain", "plain", "plain"),
            ("text/markdown", "# Title", "# Title"),
            ("text/html", "<marimo-table data='x'></marimo-table>", ""),
            ("text/html", "<pre><b>bold</b></pre>", ""),
            ("image/png", "iVBOR", ""),
        ];
        for (mimetype, data, expected) in cases {
            assert_eq!(readable(mimetype, data).text, expected, "{data}");
        }
    }

    /// As marimo 0.24 renders a polars frame (section 2.5 of the protocol notes).
    fn marimo_table(rows_json: &str, total: usize) -> String {
        let attribute = serde_json::to_string(rows_json)
            .unwrap_or_default()
            .replace('\\', "&#92;")
            .replace('"', "&quot;");
        format!(
            "<marimo-ui-element object-id='__scratch__-0' random-id='x'><marimo-table \
             data-initial-value='[]' data-label='null' data-data='{attribute}' \
             data-total-rows='{total}' data-total-columns='2'></marimo-table></marimo-ui-element>"
        )
    }

    #[test]
    fn a_table_becomes_a_text_table_in_column_order() {
        let html = marimo_table(
            r#"[{"city":"Oslo","n":3},{"city":"Bergen, the rainy one","n":12}]"#,
            2,
        );
        assert_eq!(
            readable("text/html", &html).text,
            "city                    n\n\
             ---------------------  --\n\
             Oslo                    3\n\
             Bergen, the rainy one  12\n\
             (2 rows × 2 columns)"
        );
    }

    #[test]
    fn a_long_table_says_how_much_is_shown() {
        let html = marimo_table(r#"[{"z":null,"a":"x\ny"}]"#, 1000);
        assert_eq!(
            readable("text/html", &html).text,
            "z     a\n----  ---\nnull  x y\n(1000 rows × 2 columns; the first 1 shown)"
        );
    }

    #[test]
    fn a_chart_gives_its_title_and_where_to_see_it() {
        let spec = r#"{"$schema":"https://vega.github.io/schema/vega-lite/v5.json","title":{"text":"Sales by month"},"mark":"bar"}"#;
        let text = readable("application/vnd.vegalite.v5+json", spec).text;
        assert!(
            text.starts_with("A chart, \"Sales by month\" (Vega-Lite)."),
            "{text}"
        );
        assert!(text.contains("hailer open"), "{text}");
        let untitled = readable("application/vnd.vegalite.v5+json", "{}").text;
        assert!(untitled.starts_with("An untitled chart"), "{untitled}");
    }
}
