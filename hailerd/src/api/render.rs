//! `/v1/render`: the agent's Markdown as HTML a page can show without running anything.
//!
//! pulldown-cmark renders, ammonia keeps only harmless tags and attributes: no scripts, no event
//! handlers, no styles, no images (they would load from outside the page), and links only to
//! http, https and mailto.

use std::collections::HashSet;

use axum::Json;
use hailer_protocol::{RenderParams, RenderResponse};

use super::error::ApiError;
use super::json_body::JsonBody;

/// The most Markdown one request may carry.
const MAX_MARKDOWN_BYTES: usize = 1024 * 1024;

#[utoipa::path(
    post, path = "/v1/render", tag = "meta",
    request_body = RenderParams,
    responses(
        (status = 200, body = RenderResponse),
        (status = 400, body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn render(
    JsonBody(params): JsonBody<RenderParams>,
) -> Result<Json<RenderResponse>, ApiError> {
    if params.markdown.len() > MAX_MARKDOWN_BYTES {
        return Err(ApiError::BadRequest(format!(
            "the text is {} bytes; at most {MAX_MARKDOWN_BYTES} are rendered",
            params.markdown.len()
        )));
    }
    Ok(Json(RenderResponse {
        html: safe_html(&params.markdown),
    }))
}

/// Markdown to sanitised HTML.
pub fn safe_html(markdown: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut raw = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut raw, Parser::new_ext(markdown, options));
    ammonia::Builder::default()
        .rm_tags(["img"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow"))
        .set_tag_attribute_value("a", "target", "_blank")
        .clean(&raw)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::safe_html;

    #[test]
    fn markdown_becomes_html() {
        let html =
            safe_html("# Title\n\nSome **bold** and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        assert!(html.contains("<code>code</code>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn hostile_markup_is_made_inert() {
        let html = safe_html(concat!(
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
