//! The HTTP plumbing shared by every call: auth headers, bounded bodies, readable errors.

use std::time::Duration;

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, USER_AGENT};
use reqwest::{Method, RequestBuilder, Response, StatusCode, Url};
use secrecy::{ExposeSecret, SecretString};
use tokio::time::Instant;

use crate::error::{Error, Result};

/// The header naming the marimo session a call is for.
pub(crate) const SESSION_HEADER: &str = "Marimo-Session-Id";
/// The header carrying the per-server ("skew protection") token.
pub(crate) const SERVER_TOKEN_HEADER: &str = "Marimo-Server-Token";

/// How much of an error detail a message quotes.
const DETAIL_LIMIT: usize = 500;

/// One marimo server's address and credentials, with a connection pool.
#[derive(Debug)]
pub(crate) struct Http {
    client: reqwest::Client,
    base: Url,
    token: SecretString,
}

impl Http {
    pub(crate) fn new(base_url: &str, token: SecretString) -> Result<Self> {
        let base = Url::parse(base_url).map_err(|e| {
            Error::InvalidInput(format!(
                "the marimo server address {base_url:?} is not a URL ({e})"
            ))
        })?;
        let client = reqwest::Client::builder()
            // marimo runs on loopback; a proxy from the environment must never see our token.
            .no_proxy()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| Error::transport("setting up the HTTP client", &e))?;
        Ok(Self {
            client,
            base,
            token,
        })
    }

    pub(crate) fn base(&self) -> &Url {
        &self.base
    }

    /// The URL for `path` (which starts with `/`) on this server.
    pub(crate) fn url(&self, path: &str) -> Url {
        let mut url = self.base.clone();
        url.set_path(path);
        url
    }

    /// A request with the bearer token and our user agent.
    pub(crate) fn request(&self, method: Method, url: Url) -> RequestBuilder {
        self.client
            .request(method, url)
            .headers(self.auth_headers())
            .header(USER_AGENT, "hailer")
            .header(ACCEPT, "*/*")
    }

    fn auth_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        let value = format!("Bearer {}", self.token.expose_secret());
        if let Ok(mut value) = HeaderValue::from_str(&value) {
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    /// Sends `request`, failing with a timeout once `deadline` passes.
    pub(crate) async fn send(
        &self,
        request: RequestBuilder,
        what: &str,
        deadline: Deadline,
    ) -> Result<Response> {
        deadline
            .run(what, request.send())
            .await?
            .map_err(|e| Error::transport(what, &e))
    }
}

/// When a call started and when it must be over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    pub started: Instant,
    pub at: Instant,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub(crate) fn after(budget: Duration) -> Self {
        let started = Instant::now();
        Self {
            started,
            at: started + budget,
        }
    }

    /// The error for a call `what` that ran out of this time.
    pub(crate) fn timeout(&self, what: &str) -> Error {
        Error::Timeout {
            what: what.to_owned(),
            waited: Instant::now().saturating_duration_since(self.started),
        }
    }

    /// Runs `future` until the deadline.
    pub(crate) async fn run<F: std::future::Future>(
        &self,
        what: &str,
        future: F,
    ) -> Result<F::Output> {
        tokio::time::timeout_at(self.at, future)
            .await
            .map_err(|_| self.timeout(what))
    }
}

/// Reads a whole body, refusing more than `cap` bytes and stopping at `deadline`.
pub(crate) async fn read_capped(
    mut response: Response,
    cap: usize,
    what: &str,
    deadline: Deadline,
) -> Result<Vec<u8>> {
    if let Some(length) = response.content_length()
        && length > cap as u64
    {
        return Err(Error::ReplyTooLarge {
            what: what.to_owned(),
            limit: cap,
        });
    }
    let mut body = Vec::new();
    loop {
        let chunk = match deadline.run(what, response.chunk()).await? {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return Ok(body),
            Err(e) => return Err(Error::transport(what, &e)),
        };
        if body.len().saturating_add(chunk.len()) > cap {
            return Err(Error::ReplyTooLarge {
                what: what.to_owned(),
                limit: cap,
            });
        }
        body.extend_from_slice(&chunk);
    }
}

/// Whether the response declares `mime` (ignoring parameters and case).
pub(crate) fn has_content_type(response: &Response, mime: &str) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|value| value.trim().eq_ignore_ascii_case(mime))
}

/// Reads a non-success (or otherwise unexpected) reply into an [`Error::Status`].
pub(crate) async fn status_error(
    response: Response,
    cap: usize,
    what: &str,
    deadline: Deadline,
) -> Error {
    let status = response.status();
    match read_capped(response, cap, what, deadline).await {
        Ok(body) => Error::Status {
            what: what.to_owned(),
            status: status.as_u16(),
            detail: describe_error_body(status, &body),
        },
        Err(e) => e,
    }
}

/// A short, readable detail from an error body: JSON `detail|error|message`, an HTML page's
/// title or text, or the raw text; at most [`DETAIL_LIMIT`] characters.
pub(crate) fn describe_error_body(status: StatusCode, body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let detail = json_detail(&text)
        .or_else(|| html_detail(&text))
        .unwrap_or_else(|| text.trim().to_owned());
    let detail = if detail.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("no details given")
            .to_owned()
    } else {
        detail
    };
    truncate_chars(&detail, DETAIL_LIMIT)
}

fn json_detail(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    ["detail", "error", "message"].iter().find_map(|key| {
        value.get(key).map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    })
}

fn html_detail(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("<html") && !lower.contains("<!doctype") {
        return None;
    }
    if let (Some(start), Some(end)) = (lower.find("<title>"), lower.find("</title>"))
        && start + 7 <= end
    {
        let title = text.get(start + 7..end).unwrap_or("").trim();
        if !title.is_empty() {
            return Some(format!("an HTML error page: {title}"));
        }
    }
    Some(format!("an HTML error page: {}", strip_tags(text)))
}

fn strip_tags(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `limit` characters of `text`, with an ellipsis when cut.
pub(crate) fn truncate_chars(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn error_bodies_become_short_details() {
        let s = StatusCode::INTERNAL_SERVER_ERROR;
        assert_eq!(
            describe_error_body(s, br#"{"detail":"Invalid session id: s_1"}"#),
            "Invalid session id: s_1"
        );
        assert_eq!(
            describe_error_body(
                StatusCode::UNAUTHORIZED,
                br#"{"error":"Invalid server token"}"#
            ),
            "Invalid server token"
        );
        assert_eq!(
            describe_error_body(
                s,
                b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>"
            ),
            "an HTML error page: 502 Bad Gateway"
        );
        assert_eq!(
            describe_error_body(s, b"<html><body><h1>Oops</h1><p>broken</p></body></html>"),
            "an HTML error page: Oops broken"
        );
        assert_eq!(describe_error_body(s, b""), "Internal Server Error");
        let long = "x".repeat(2000);
        assert_eq!(describe_error_body(s, long.as_bytes()).chars().count(), 501);
    }
}
