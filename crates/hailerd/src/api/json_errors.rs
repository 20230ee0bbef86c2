//! Every error the daemon answers carries the JSON error body, including the refusals the
//! framework makes before a handler runs: a method the route does not take (405), a query or
//! path value that does not parse, a route that does not exist.
//!
//! Handlers and guards answer with [`ApiError`] already; this layer rewrites only the error
//! replies that are not JSON yet, keeping their status (axum adds a 405's `Allow` header to
//! the rewritten reply).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, code_for_status};

/// The most of a plain-text refusal that is kept as the message.
const MAX_MESSAGE_BYTES: usize = 2048;

/// Turns a plain-text (or empty) error reply into the JSON error body.
pub(super) async fn as_json(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(response.headers()) {
        return response;
    }
    let text = read_text(response.into_body()).await;
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("the request was refused")
            .to_lowercase()
    } else {
        text
    };
    ApiError::Refused {
        status,
        code: code_for_status(status),
        message,
        hint: None,
    }
    .into_response()
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value: &HeaderValue| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
}

/// The start of a refusal's text, on one line.
async fn read_text(body: Body) -> String {
    let bytes = axum::body::to_bytes(body, MAX_MESSAGE_BYTES * 4)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let mut line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        line.truncate(end);
    }
    line
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::Router;
    use axum::http::{Method, StatusCode};
    use axum::routing::get;
    use tower::ServiceExt;

    async fn answer(method: Method, uri: &str) -> (StatusCode, HeaderMap, serde_json::Value) {
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct Resume {
            after: Option<u64>,
        }
        let app = Router::new()
            .route(
                "/events",
                get(|_: axum::extract::Query<Resume>| async { "ok" }),
            )
            .layer(axum::middleware::from_fn(as_json));
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        let (status, headers) = (response.status(), response.headers().clone());
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        let value = serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null);
        (status, headers, value)
    }

    #[tokio::test]
    async fn framework_refusals_get_the_json_body() {
        let (status, headers, body) = answer(Method::DELETE, "/events").await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(body["code"], "method_not_allowed");
        let allow = headers.get(header::ALLOW).unwrap().to_str().unwrap();
        assert!(allow.contains("GET"), "{allow}");

        let (status, _, body) = answer(Method::GET, "/events?after=-1").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["code"], "bad_request");
        assert!(
            body["message"].as_str().unwrap().contains("after"),
            "{body}"
        );

        let (status, _, body) = answer(Method::GET, "/nowhere").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_eq!(body["code"], "not_found");

        let (status, _, body) = answer(Method::GET, "/events?after=3").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, serde_json::Value::Null);
    }
}
