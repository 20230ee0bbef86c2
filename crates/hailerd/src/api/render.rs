//! `/v1/render`: the agent's Markdown as HTML a page can show without running anything.
//!
//! pulldown-cmark renders, ammonia keeps only harmless tags and attributes: no scripts, no event
//! handlers, no styles, no images (they would load from outside the page), and links only to
//! http, https and mailto.
//!
//! Rendering is CPU work that grows with the text's nesting, so it runs on tokio's blocking pool,
//! never on the async workers that serve every other request, at most [`RENDER_SLOTS`] at a time.
//! Text larger than [`MAX_MARKDOWN_BYTES`] is refused with 413 and text nested deeper than
//! [`MAX_NESTING`] with 422; the page then keeps showing the answer as plain text.

use std::collections::HashSet;
use std::time::Duration;

use axum::Json;
use hailer_protocol::{RenderParams, RenderResponse};
use tokio::sync::Semaphore;

use super::error::ApiError;
use super::json_body::JsonBody;

/// The most Markdown one request may carry.
const MAX_MARKDOWN_BYTES: usize = 1024 * 1024;
/// The deepest nesting of blocks, inline spans and raw HTML elements that is rendered.
const MAX_NESTING: usize = 32;
/// How many renders may run at once.
const RENDER_SLOTS: usize = 2;
/// How long a render waits for a free slot before it is refused.
const SLOT_WAIT: Duration = Duration::from_secs(5);

static SLOTS: Semaphore = Semaphore::const_new(RENDER_SLOTS);

/// Why a text is not rendered.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    TooLarge(usize),
    TooDeep,
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::TooLarge(bytes) => Self::PayloadTooLarge(format!(
                "the text is {bytes} bytes; at most {MAX_MARKDOWN_BYTES} are rendered"
            )),
            Refusal::TooDeep => Self::Unprocessable(format!(
                "the text nests more than {MAX_NESTING} levels deep or holds an HTML tag longer \
                 than {TAG_WINDOW} characters, so it is shown as plain text"
            )),
        }
    }
}

#[utoipa::path(
    post, path = "/v1/render", operation_id = "renderMarkdown", tag = "meta",
    request_body = RenderParams,
    responses(
        (status = 200, body = RenderResponse),
        (status = 400, body = hailer_protocol::ErrorBody),
        (status = 413, description = "The text is larger than 1 MiB", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The text nests too deeply to be rendered", body = hailer_protocol::ErrorBody),
        (status = 503, description = "Too many renders run already", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn render(
    JsonBody(params): JsonBody<RenderParams>,
) -> Result<Json<RenderResponse>, ApiError> {
    if params.markdown.len() > MAX_MARKDOWN_BYTES {
        return Err(Refusal::TooLarge(params.markdown.len()).into());
    }
    let busy = || ApiError::Busy("too many answers are being rendered; try again".to_owned());
    let _slot = tokio::time::timeout(SLOT_WAIT, SLOTS.acquire())
        .await
        .map_err(|_| busy())?
        .map_err(|_| busy())?;
    let html = tokio::task::spawn_blocking(move || safe_html(&params.markdown))
        .await
        .map_err(|error| ApiError::Internal(format!("the render did not finish: {error}")))??;
    Ok(Json(RenderResponse { html }))
}

/// Markdown to sanitised HTML, unless it is too large or nests too deeply.
pub(super) fn safe_html(markdown: &str) -> Result<String, Refusal> {
    use pulldown_cmark::{Event, Options, Parser, html};
    if markdown.len() > MAX_MARKDOWN_BYTES {
        return Err(Refusal::TooLarge(markdown.len()));
    }
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut events = Vec::new();
    let mut depth = 0usize;
    let mut html_depth = 0usize;
    for event in Parser::new_ext(markdown, options) {
        match &event {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Html(raw) | Event::InlineHtml(raw) => {
                html_depth = html_nesting(raw, html_depth).ok_or(Refusal::TooDeep)?;
            }
            _ => {}
        }
        if depth + html_depth > MAX_NESTING {
            return Err(Refusal::TooDeep);
        }
        events.push(event);
    }
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, events.into_iter());
    Ok(sanitise(&raw))
}

/// The raw HTML elements left open after `raw`, counting from `open`: `None` when they go past
/// [`MAX_NESTING`] or a tag does not end within [`TAG_WINDOW`] bytes. Closing tags count down and self-closing ones not at all; it is an upper
/// bound, as an HTML parser closes some elements on its own.
fn html_nesting(raw: &str, mut open: usize) -> Option<usize> {
    let bytes = raw.as_bytes();
    for (at, byte) in bytes.iter().enumerate() {
        if *byte != b'<' {
            continue;
        }
        match bytes.get(at + 1) {
            Some(b'/') => open = open.saturating_sub(1),
            Some(next) if next.is_ascii_alphabetic() => {
                // Only a short stretch is looked at, so a long run of `<` costs linear time.
                let window = &bytes[at + 1..bytes.len().min(at + 1 + TAG_WINDOW)];
                // A tag that long is no tag an answer needs, and HTML parsers spend time on it
                // that grows with the square of its attributes.
                let end = window.iter().position(|byte| *byte == b'>')?;
                let tag = &window[..end];
                let name_end = tag
                    .iter()
                    .position(|byte| !byte.is_ascii_alphanumeric())
                    .unwrap_or(tag.len());
                let name = String::from_utf8_lossy(&tag[..name_end]).to_ascii_lowercase();
                if !tag.ends_with(b"/") && !VOID_ELEMENTS.contains(&name.as_str()) {
                    open += 1;
                }
            }
            _ => {}
        }
        if open > MAX_NESTING {
            return None;
        }
    }
    Some(open)
}

/// How far past a `<` the end of its tag is looked for.
const TAG_WINDOW: usize = 1024;

/// Elements that never have content, so never nest.
const VOID_ELEMENTS: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

fn sanitise(raw: &str) -> String {
    ammonia::Builder::default()
        .rm_tags(["img"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow"))
        .set_tag_attribute_value("a", "target", "_blank")
        .clean(raw)
        .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn safe_html_ok(markdown: &str) -> String {
        safe_html(markdown).unwrap()
    }

    #[test]
    fn size_and_nesting_bounds() {
        let deep = |unit: &str, times: usize| unit.repeat(times);
        let cases: [(String, Option<Refusal>); 13] = [
            ("plain words".to_owned(), None),
            (deep("> ", 20) + "x", None),
            (deep("> ", 40) + "x", Some(Refusal::TooDeep)),
            (deep("<div>", 20), None),
            (deep("<div>", 40), Some(Refusal::TooDeep)),
            (deep("<div></div>", 500), None),
            (format!("a {}", deep("<br>", 500)), None),
            (format!("a {}", deep("<br/>", 500)), None),
            (format!("a {}", deep("<b>", 40)), Some(Refusal::TooDeep)),
            (deep("*a _", 10), None),
            (
                format!("<hr\n{}", deep("<hr", 1000)),
                Some(Refusal::TooDeep),
            ),
            (
                "a".repeat(MAX_MARKDOWN_BYTES + 1),
                Some(Refusal::TooLarge(MAX_MARKDOWN_BYTES + 1)),
            ),
            ("a".repeat(MAX_MARKDOWN_BYTES), None),
        ];
        for (markdown, expected) in cases {
            let shown = &markdown[..markdown.len().min(40)];
            assert_eq!(safe_html(&markdown).err(), expected, "{shown}");
        }
    }

    #[test]
    fn markdown_becomes_html() {
        let html = safe_html_ok(
            "# Title\n\nSome **bold** and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn hostile_markup_is_made_inert() {
        let html = safe_html_ok(concat!(
            "<script>window.pwned = 1</script>\n\n",
            "<img src=x onerror=\"window.pwned = 2\">\n\n",
            "[click](javascript:window.pwned=3) <a href=\"javascript:alert(1)\">raw</a>\n\n",
            "<div onclick=\"x()\" style=\"position:fixed\">div</div>\n\n",
            "<iframe src=\"https://example.com\"></iframe><svg onload=alert(1)></svg>\n\n",
            "[rel](/v1/sessions) [ok](https://example.com)\n",
        ));
        for bad in [
            "<script",
            "pwned",
            "onerror",
            "<img",
            "javascript:",
            "onclick",
            "style=",
            "<iframe",
            "<svg",
            "onload",
            "/v1/sessions",
        ] {
            assert!(!html.contains(bad), "{bad} survived: {html}");
        }
        assert!(html.contains("href=\"https://example.com\""), "{html}");
        assert!(
            html.contains("rel=\"noopener noreferrer nofollow\""),
            "{html}"
        );
        assert!(html.contains("target=\"_blank\""), "{html}");
    }
}
