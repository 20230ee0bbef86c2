//! The browser chat page: the static files of `web/`, built into the daemon.
//!
//! They hold no data, so they need no token (the page asks for everything else with the token
//! the signed link carries); the Host check still applies. Every file goes out with a strict
//! Content-Security-Policy: the page runs only its own script, talks only to this daemon, and
//! cannot be framed.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// One file of the page.
#[derive(Debug, Clone, Copy)]
pub struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

/// Every file the page is made of.
pub const ASSETS: [Asset; 5] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_str!("../../../web/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../../../web/app.js"),
    },
    Asset {
        path: "/audit.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../../../web/audit.js"),
    },
    Asset {
        path: "/work.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_str!("../../../web/work.js"),
    },
    Asset {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("../../../web/app.css"),
    },
];

/// Serves the asset at the request's path (the router sends only those paths here).
pub async fn serve(request: Request) -> Response {
    let path = request.uri().path();
    let Some(asset) = ASSETS.iter().find(|asset| asset.path == path) else {
        return super::ApiError::NotFound("not found".to_owned()).into_response();
    };
    // The Host guard already ran, so the Host header names this daemon by a loopback name.
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let mut headers = HeaderMap::new();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    if let Ok(policy) = HeaderValue::from_str(&content_security_policy(host)) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    (headers, asset.body).into_response()
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
    use super::*;

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
