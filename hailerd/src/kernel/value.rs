//! Turning marimo's rendered value of an expression into something a terminal can show.
//!
//! marimo renders even a scalar as HTML (`<pre class='text-xs'>42</pre>`). A value that is just
//! preformatted text becomes that text; anything richer is named by its mimetype only.

use hailer_protocol::ExecValue;

/// The text form of a rendered value, when it has one.
pub fn readable(mimetype: &str, data: &str) -> ExecValue {
    let text = match mimetype {
        "text/plain" | "text/markdown" => data.to_owned(),
        "text/html" => plain_pre(data).map(unescape_html).unwrap_or_default(),
        _ => String::new(),
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
        .replace("&amp;", "&")
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
}
