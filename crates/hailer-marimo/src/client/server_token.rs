//! marimo's per-server ("skew protection") token, read from its home page and cached.

use std::sync::OnceLock;

use regex::Regex;
use reqwest::Method;
use tokio::sync::Mutex;

use super::MarimoClient;
use super::http::{Deadline, read_capped, status_error};
use crate::error::{Error, Result};

/// The home page is read up to this size when looking for the token.
const HOME_PAGE_CAP: usize = 2_000_000;

/// The cached token (`None` until first needed, or after marimo refused it).
#[derive(Debug, Default)]
pub(crate) struct ServerTokenCache(Mutex<Option<String>>);

/// Whether `error` is marimo refusing the server token (missing or from another server run).
pub(crate) fn is_server_token_refusal(error: &Error) -> bool {
    matches!(error, Error::Status { status: 401, detail, .. }
        if detail.to_ascii_lowercase().contains("server token"))
}

/// The token inside `<marimo-server-token data-token="...">` of a home page.
pub(crate) fn find_server_token(html: &str) -> Option<String> {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = PATTERN
        .get_or_init(|| {
            Regex::new(r#"<marimo-server-token[^>]*\bdata-token=["']([^"']+)["']"#).ok()
        })
        .as_ref()?;
    pattern
        .captures(html)
        .and_then(|captures| captures.get(1))
        .map(|m| m.as_str().to_owned())
}

impl MarimoClient {
    /// The server token, fetched from `GET /` when not cached or when `refresh` is set.
    pub(super) async fn server_token(&self, deadline: Deadline, refresh: bool) -> Result<String> {
        let mut cached = self.inner.server_token.0.lock().await;
        if !refresh && let Some(token) = cached.as_ref() {
            return Ok(token.clone());
        }
        *cached = None;
        let what = "reading the server token from marimo's home page";
        let http = &self.inner.http;
        let request = http.request(Method::GET, http.url("/"));
        let response = http.send(request, what, deadline).await?;
        if !response.status().is_success() {
            return Err(status_error(response, HOME_PAGE_CAP, what, deadline).await);
        }
        let body = read_capped(response, HOME_PAGE_CAP, what, deadline).await?;
        let token =
            find_server_token(&String::from_utf8_lossy(&body)).ok_or_else(|| Error::BadReply {
                what: what.to_owned(),
                detail: "the page has no <marimo-server-token> element; is this marimo 0.24?"
                    .to_owned(),
            })?;
        *cached = Some(token.clone());
        Ok(token)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn finds_the_token_in_either_quote_style() {
        assert_eq!(
            find_server_token(
                r#"<p> <marimo-server-token data-token="8qclZqwfjbkX9SQJtEuTtA" hidden>"#
            )
            .as_deref(),
            Some("8qclZqwfjbkX9SQJtEuTtA")
        );
        assert_eq!(
            find_server_token("<marimo-server-token hidden data-token='abc'>").as_deref(),
            Some("abc")
        );
        assert_eq!(find_server_token("<html>no token</html>"), None);
    }

    #[test]
    fn only_server_token_401s_count_as_refusals() {
        let refusal = |status: u16, detail: &str| Error::Status {
            what: "x".into(),
            status,
            detail: detail.into(),
        };
        assert!(is_server_token_refusal(&refusal(
            401,
            "Invalid server token"
        )));
        assert!(is_server_token_refusal(&refusal(
            401,
            "Missing server token"
        )));
        assert!(!is_server_token_refusal(&refusal(
            401,
            "Authorization header required"
        )));
        assert!(!is_server_token_refusal(&refusal(
            500,
            "Invalid server token"
        )));
    }
}
