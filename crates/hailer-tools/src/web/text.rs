//! Turning a fetched body into text for the model, and URLs into something safe to show it.

use reqwest::Url;

/// Width HTML is wrapped to.
const TEXT_WIDTH: usize = 100;

/// Query parameters whose values are masked in URLs shown to the model.
const SECRET_PARAMETERS: &[&str] = &[
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "key",
    "apikey",
    "api_key",
    "code",
    "password",
    "secret",
    "sig",
    "signature",
    "session",
    "sessionid",
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
];

/// The body as text: HTML converted, other text as it is; `None` for anything else.
pub(crate) fn page_text(content_type: &str, body: &[u8]) -> Option<String> {
    let mime = content_type.split(';').next().unwrap_or("").trim();
    let looks_html = mime.is_empty() && {
        let start = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
        start.contains("<html") || start.contains("<!doctype html")
    };
    if mime == "text/html" || mime == "application/xhtml+xml" || looks_html {
        return Some(
            html2text::from_read(body, TEXT_WIDTH)
                .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned()),
        );
    }
    let textual = mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-ndjson"
                | "application/csv"
        );
    (textual || (mime.is_empty() && std::str::from_utf8(body).is_ok()))
        .then(|| String::from_utf8_lossy(body).into_owned())
}

/// The URL without user name and password, with secret-looking query values replaced.
pub(crate) fn mask_url(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    if shown.query().is_some() {
        let pairs: Vec<(String, String)> = shown
            .query_pairs()
            .map(|(name, value)| {
                let secret = SECRET_PARAMETERS.contains(&name.to_ascii_lowercase().as_str());
                (
                    name.into_owned(),
                    if secret {
                        "REDACTED".to_owned()
                    } else {
                        value.into_owned()
                    },
                )
            })
            .collect();
        shown.query_pairs_mut().clear().extend_pairs(pairs);
    }
    shown.to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn html_becomes_text_and_binary_is_refused() {
        let text = page_text("text/html; charset=utf-8", b"<html><body><h1>Title</h1><p>Some <b>bold</b> words.</p><script>x()</script></body></html>").unwrap();
        assert!(
            text.contains("Title") && text.contains("bold") && !text.contains("<p>"),
            "{text}"
        );
        assert_eq!(page_text("text/plain", b"plain").unwrap(), "plain");
        assert!(page_text("image/png", b"\x89PNG").is_none());
        assert!(
            page_text("", b"<!DOCTYPE html><p>hi</p>")
                .unwrap()
                .contains("hi")
        );
    }

    #[test]
    fn urls_lose_credentials_and_secret_values() {
        let url = Url::parse("https://u:p@example.com/a?q=sales&token=abc123&Key=zz").unwrap();
        assert_eq!(
            mask_url(&url),
            "https://example.com/a?q=sales&token=REDACTED&Key=REDACTED"
        );
        let plain = Url::parse("https://example.com/a").unwrap();
        assert_eq!(mask_url(&plain), "https://example.com/a");
    }
}
