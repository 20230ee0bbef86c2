//! The daemon's front door: Host, Origin and token checks.
//!
//! * The request target must be a path (origin form): an absolute target such as
//!   `POST http://evil.example/v1/...` names another server and is refused.
//! * `Host` must name this daemon by a loopback name and its port, on every route, so a page that
//!   rebinds its own DNS name to 127.0.0.1 cannot talk to us. It must come exactly once, and
//!   `Origin` at most once: with two, a check could read one and a proxy or a handler the other.
//! * A WebSocket upgrade or a state-changing request that carries an `Origin` must come from our
//!   own origin, so another site open in the browser cannot drive the daemon. No CORS, ever.
//! * Everything under `/v1/` needs the per-run token: `Authorization: Bearer <token>`, or for a
//!   browser WebSocket the `hailer.token.<token>` subprotocol (browsers cannot set headers there).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hailer_protocol::WS_TOKEN_PROTOCOL_PREFIX;

use super::error::ApiError;
use crate::daemon_state::Daemon;

/// Host and Origin checks, for every route.
pub(super) async fn check_host_and_origin(
    State(daemon): State<Daemon>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refusal) = malformed(&request) {
        tracing::warn!(uri = %request.uri(), "refused a malformed request");
        return refusal.into_response();
    }
    let headers = request.headers();
    let Some(host) = allowed_host(headers, daemon.port) else {
        tracing::warn!(host = ?headers.get(header::HOST), "refused a request for another host");
        return ApiError::ForbiddenHost.into_response();
    };
    if needs_origin_check(request.method(), headers)
        && let Some(origin) = headers.get(header::ORIGIN)
        && origin.as_bytes() != format!("http://{host}").as_bytes()
    {
        tracing::warn!(?origin, "refused a request from another origin");
        return ApiError::ForbiddenOrigin.into_response();
    }
    next.run(request).await
}

/// The token check, for `/v1/`.
pub(super) async fn require_token(
    State(daemon): State<Daemon>,
    request: Request,
    next: Next,
) -> Response {
    let presented = bearer_token(request.headers()).or_else(|| {
        is_websocket_upgrade(request.headers())
            .then(|| protocol_token(request.headers()))
            .flatten()
    });
    match presented {
        Some(token) if daemon.config.token.matches(token) => {
            let path = request
                .extensions()
                .get::<axum::extract::OriginalUri>()
                .map_or_else(|| request.uri().path(), |original| original.path());
            tracing::debug!(method = %request.method(), %path, "API request");
            daemon.touch().await;
            next.run(request).await
        }
        _ => ApiError::Unauthorized.into_response(),
    }
}

/// Why a request is refused before its Host and Origin are even read: a target that is not a
/// path, or a `Host` or `Origin` header given more than once.
fn malformed(request: &Request) -> Option<ApiError> {
    let uri = request.uri();
    if uri.scheme().is_some() || uri.authority().is_some() {
        return Some(ApiError::BadRequest(
            "the request target must be a path such as /v1/daemon, not a full address".to_owned(),
        ));
    }
    let headers = request.headers();
    [header::HOST, header::ORIGIN]
        .into_iter()
        .find(|name| headers.get_all(name).iter().nth(1).is_some())
        .map(|name| ApiError::BadRequest(format!("the {name} header must be sent only once")))
}

/// The `Host` value if it is one of ours, else `None`.
fn allowed_host(headers: &HeaderMap, port: u16) -> Option<&str> {
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return None;
    }
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let (name, host_port) = host.rsplit_once(':')?;
    let matches_port = host_port.parse::<u16>().ok() == Some(port) && !host_port.starts_with('0');
    let loopback_name = matches!(name, "127.0.0.1" | "localhost" | "[::1]");
    (matches_port && loopback_name).then_some(host)
}

fn needs_origin_check(method: &Method, headers: &HeaderMap) -> bool {
    is_websocket_upgrade(headers) || !matches!(*method, Method::GET | Method::HEAD)
}

fn is_websocket_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("websocket"))
}

/// `Authorization: Bearer <token>`: the scheme in any case, as HTTP's authentication
/// schemes are (RFC 9110, section 11.1), then one or more spaces and the token alone.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = value.split_once(' ')?;
    let token = rest.trim_start_matches(' ');
    (scheme.eq_ignore_ascii_case("bearer")
        && !token.is_empty()
        && !token.contains(char::is_whitespace))
    .then_some(token)
}

/// The token a browser puts in `Sec-WebSocket-Protocol` as `hailer.token.<token>`.
fn protocol_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .find_map(|protocol| protocol.strip_prefix(WS_TOKEN_PROTOCOL_PREFIX))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::http::HeaderValue;

    fn with_host(host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        headers
    }

    #[test]
    fn only_loopback_names_with_our_port_pass() {
        for good in ["127.0.0.1:4000", "localhost:4000", "[::1]:4000"] {
            assert_eq!(allowed_host(&with_host(good), 4000), Some(good));
        }
        for bad in [
            "evil.example:4000",
            "127.0.0.1:4001",
            "127.0.0.1",
            "localhost",
            "127.0.0.1:04000",
            "127.0.0.2:4000",
            "0.0.0.0:4000",
            "localhost.evil.example:4000",
            "127.0.0.1:4000:4000",
            "LOCALHOST:4000x",
            "",
        ] {
            assert_eq!(allowed_host(&with_host(bad), 4000), None, "{bad}");
        }
        assert_eq!(allowed_host(&HeaderMap::new(), 4000), None);
    }

    #[test]
    fn absolute_targets_and_repeated_host_or_origin_are_refused() {
        let ours = "127.0.0.1:4000";
        let own_origin = "http://127.0.0.1:4000";
        // (target, headers, refused)
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], bool);
        let cases: [Case; 12] = [
            ("/v1/daemon", &[("host", ours)], false),
            (
                "/v1/daemon",
                &[("host", ours), ("origin", own_origin)],
                false,
            ),
            ("/", &[("host", ours)], false),
            ("http://evil.example/v1/daemon", &[("host", ours)], true),
            ("http://127.0.0.1:4000/v1/daemon", &[("host", ours)], true),
            ("https://localhost:4000/", &[("host", ours)], true),
            ("127.0.0.1:4000", &[("host", ours)], true),
            ("/v1/daemon", &[("host", ours), ("host", ours)], true),
            (
                "/v1/daemon",
                &[("host", ours), ("host", "evil.example:4000")],
                true,
            ),
            (
                "/v1/daemon",
                &[("host", "evil.example:4000"), ("host", ours)],
                true,
            ),
            (
                "/v1/daemon",
                &[
                    ("host", ours),
                    ("origin", own_origin),
                    ("origin", own_origin),
                ],
                true,
            ),
            (
                "/v1/daemon",
                &[
                    ("host", ours),
                    ("origin", own_origin),
                    ("origin", "http://evil.example"),
                ],
                true,
            ),
        ];
        for (target, headers, refused) in cases {
            let mut builder = Request::builder().method(Method::POST).uri(target);
            for (name, value) in headers {
                builder = builder.header(*name, *value);
            }
            let request = builder.body(axum::body::Body::empty()).unwrap();
            let verdict = malformed(&request);
            assert_eq!(
                verdict.is_some(),
                refused,
                "{target} {headers:?}: {verdict:?}"
            );
            if let Some(error) = verdict {
                assert_eq!(error.into_response().status(), 400, "{target} {headers:?}");
            }
        }
    }

    #[test]
    fn a_second_host_is_never_allowed() {
        let mut headers = with_host("127.0.0.1:4000");
        headers.append(header::HOST, HeaderValue::from_static("127.0.0.1:4000"));
        assert_eq!(allowed_host(&headers, 4000), None);
    }

    #[test]
    fn bearer_is_parsed_strictly() {
        let cases = [
            ("Bearer abc", Some("abc")),
            ("bearer abc", Some("abc")),
            ("BEARER abc", Some("abc")),
            ("Bearer  abc", Some("abc")),
            ("Bearer ", None),
            ("Bearer a b", None),
            ("Bearer abc ", None),
            ("Bearer\tabc", None),
            ("Basic abc", None),
            ("Bearerabc", None),
            (" Bearer abc", None),
            ("Bearers abc", None),
        ];
        for (value, expected) in cases {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            assert_eq!(bearer_token(&headers), expected, "{value}");
        }
    }

    #[test]
    fn token_subprotocol_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::SEC_WEBSOCKET_PROTOCOL,
            HeaderValue::from_static("hailer.v1, hailer.token.abc"),
        );
        assert_eq!(protocol_token(&headers), Some("abc"));
    }
}
