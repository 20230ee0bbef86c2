//! The browser chat page: the static files of `web/`, built into the daemon.
//!
//! They hold no data, so they need no token (the page asks for everything else with the token
//! the signed link carries); the Host check still applies. Every file goes out with a strict
//! Content-Security-Policy: the page runs only its own script, talks only to this daemon, and
//! cannot be framed.

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tower_http::set_header::SetResponseHeaderLayer;

/// One file of the page.
#[derive(Debug, Clone, Copy)]
pub(super) struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

/// An asset of `web/`: its path on the daemon, its content type and its file.
macro_rules! asset {
    ($path:literal, $content_type:literal, $file:literal) => {
        Asset {
            path: $path,
            content_type: $content_type,
            body: include_str!(concat!("../../../../web/", $file)),
        }
    };
}

/// Every file the page is made of.
pub(super) const ASSETS: [Asset; 5] = [
    asset!("/", "text/html; charset=utf-8", "index.html"),
    asset!("/app.js", "text/javascript; charset=utf-8", "app.js"),
    asset!("/audit.js", "text/javascript; charset=utf-8", "audit.js"),
    asset!("/work.js", "text/javascript; charset=utf-8", "work.js"),
    asset!("/app.css", "text/css; charset=utf-8", "app.css"),
];

/// The page's routes, every response with its security headers, set by tower-http layers.
pub(super) fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let fixed =
        |name, value| SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value));
    ASSETS
        .iter()
        .fold(Router::new(), |page, asset| {
            page.route(asset.path, get(serve))
        })
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            |response: &Response| {
                let PageHost(host) = response.extensions().get::<PageHost>()?;
                HeaderValue::from_str(&content_security_policy(host)).ok()
            },
        ))
        .layer(fixed(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(fixed(header::REFERRER_POLICY, "no-referrer"))
        .layer(fixed(header::X_FRAME_OPTIONS, "DENY"))
        .layer(fixed(header::CACHE_CONTROL, "no-cache"))
}

/// The `Host` a page request named, which its policy lets the page's WebSocket reach.
#[derive(Debug, Clone)]
struct PageHost(String);

/// Serves the asset at the request's path (the router sends only those paths here).
async fn serve(request: Request) -> Response {
    let path = request.uri().path();
    let Some(asset) = ASSETS.iter().find(|asset| asset.path == path) else {
        return super::ApiError::NotFound("not found".to_owned()).into_response();
    };
    // The Host guard already ran, so the Host header names this daemon by a loopback name.
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut response = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(asset.content_type),
        )],
        asset.body,
    )
        .into_response();
    response.extensions_mut().insert(PageHost(host));
    response
}

/// The page's policy; `host` is the daemon's own `name:port`, which the page's WebSocket uses.
fn content_security_policy(host: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self' ws://{host}; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'"
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn every_file_goes_out_with_the_same_security_headers() {
        for asset in ASSETS {
            let request = Request::get(asset.path)
                .header(header::HOST, "localhost:4000")
                .body(axum::body::Body::empty())
                .unwrap();
            let response = routes::<()>().oneshot(request).await.unwrap();
            let headers = response.headers();
            let value = |name| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
            };
            assert_eq!(value(header::CONTENT_TYPE), asset.content_type);
            assert_eq!(
                value(header::CONTENT_SECURITY_POLICY),
                content_security_policy("localhost:4000")
            );
            assert_eq!(value(header::X_CONTENT_TYPE_OPTIONS), "nosniff");
            assert_eq!(value(header::REFERRER_POLICY), "no-referrer");
            assert_eq!(value(header::X_FRAME_OPTIONS), "DENY");
            assert_eq!(value(header::CACHE_CONTROL), "no-cache");
            assert!(response.extensions().get::<PageHost>().is_some());
        }
    }

    /// The whole page, uncompressed, stays small enough to load at once on any machine.
    #[test]
    fn the_page_weighs_at_most_100_kb() {
        let total: usize = ASSETS.iter().map(|asset| asset.body.len()).sum();
        assert!(total <= 100 * 1024, "the page is {total} bytes");
    }

    #[test]
    fn the_policy_allows_only_this_daemon() {
        let policy = content_security_policy("127.0.0.1:4000");
        assert!(policy.contains("connect-src 'self' ws://127.0.0.1:4000;"));
        assert!(policy.contains("script-src 'self';"));
        assert!(!policy.contains("unsafe"));
    }
}
