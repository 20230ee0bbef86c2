//! The daemon's front door: tokens, Host and Origin on every route, and no CORS.

use futures_util::StreamExt;
use hailer_tests::TestDaemon;
use hailer_tests::daemon::http_client;
use reqwest::StatusCode;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

/// Every HTTP route under /v1 (the WebSocket is tested apart), with its method.
const ROUTES: [(&str, &str); 4] = [
    ("GET", "/v1/daemon"),
    ("GET", "/v1/openapi.json"),
    ("GET", "/v1/no-such-route"),
    ("POST", "/v1/daemon/shutdown"),
];

fn altered(token: &str) -> String {
    let mut bytes = token.as_bytes().to_vec();
    bytes[31] = if bytes[31] == b'0' { b'1' } else { b'0' };
    String::from_utf8(bytes).unwrap()
}

async fn status(
    daemon: &TestDaemon,
    method: &str,
    path: &str,
    token: Option<&str>,
    host: Option<&str>,
) -> StatusCode {
    let client = http_client();
    let mut request = client.request(method.parse().unwrap(), daemon.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(host) = host {
        request = request.header("Host", host);
    }
    request.send().await.unwrap().status()
}

#[tokio::test]
async fn every_v1_route_wants_the_exact_token() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let token = daemon.token().to_owned();
    let bad_tokens = [
        None,
        Some("wrong".to_owned()),
        Some(altered(&token)),
        Some(format!("{token}x")),
        Some(token[..63].to_owned()),
    ];
    for (method, path) in ROUTES {
        for bad in &bad_tokens {
            assert_eq!(
                status(&daemon, method, path, bad.as_deref(), None).await,
                StatusCode::UNAUTHORIZED,
                "{method} {path} with {bad:?}"
            );
        }
    }
    // The same token in another scheme, or with no scheme, is no token; the scheme's case
    // does not matter (RFC 9110).
    let client = http_client();
    for value in [format!("bearer {token}"), format!("BEARER  {token}")] {
        let response = client
            .get(daemon.url("/v1/daemon"))
            .header("Authorization", value)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    }
    for value in [format!("Basic {token}"), token.clone()] {
        let response = client
            .get(daemon.url("/v1/daemon"))
            .header("Authorization", value)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    // The token from the runtime file works.
    assert_eq!(
        status(&daemon, "GET", "/v1/daemon", Some(&token), None).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&daemon, "GET", "/v1/openapi.json", Some(&token), None).await,
        StatusCode::OK
    );
    assert_eq!(
        status(&daemon, "GET", "/v1/no-such-route", Some(&token), None).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_route_even_with_the_token() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let token = daemon.token().to_owned();
    let port = daemon.runtime.port;
    let foreign = [
        format!("evil.example:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        "127.0.0.1".to_owned(),
        format!("localhost.evil.example:{port}"),
        format!("0.0.0.0:{port}"),
    ];
    let mut paths: Vec<(&str, &str)> = ROUTES.to_vec();
    paths.extend([("GET", "/"), ("GET", "/index.html"), ("GET", "/v1/events")]);
    for host in &foreign {
        for (method, path) in &paths {
            assert_eq!(
                status(&daemon, method, path, Some(&token), Some(host)).await,
                StatusCode::FORBIDDEN,
                "{method} {path} as {host}"
            );
        }
    }
    for host in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        format!("127.0.0.1:{port}"),
    ] {
        assert_eq!(
            status(&daemon, "GET", "/v1/daemon", Some(&token), Some(&host)).await,
            StatusCode::OK,
            "{host}"
        );
    }
    // The daemon is still up: a refused request changes nothing.
    assert_eq!(
        status(&daemon, "GET", "/v1/daemon", Some(&token), None).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn state_changing_requests_from_another_origin_are_refused() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let client = http_client();
    let response = client
        .post(daemon.url("/v1/daemon/shutdown"))
        .bearer_auth(daemon.token())
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(
        response
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
    // Still running.
    let info = client
        .get(daemon.url("/v1/daemon"))
        .bearer_auth(daemon.token())
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(info.status(), StatusCode::OK);
    assert!(info.headers().get("access-control-allow-origin").is_none());
}

#[tokio::test]
async fn no_cors_preflight_is_answered() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let response = http_client()
        .request(reqwest::Method::OPTIONS, daemon.url("/v1/daemon"))
        .header("Origin", daemon.base_url())
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert!(!response.status().is_success());
    for header in response.headers().keys() {
        assert!(!header.as_str().starts_with("access-control-"), "{header}");
    }
}

fn ws_request(
    daemon: &TestDaemon,
    token: Option<&str>,
    origin: Option<&str>,
) -> tokio_tungstenite::tungstenite::handshake::client::Request {
    let mut request = format!("ws://127.0.0.1:{}/v1/events", daemon.runtime.port)
        .into_client_request()
        .unwrap();
    if let Some(token) = token {
        request.headers_mut().insert(
            "Authorization",
            HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
        );
    }
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", HeaderValue::from_str(origin).unwrap());
    }
    request
}

fn refused_status(error: tokio_tungstenite::tungstenite::Error) -> u16 {
    match error {
        tokio_tungstenite::tungstenite::Error::Http(response) => response.status().as_u16(),
        other => panic!("expected an HTTP refusal, got {other}"),
    }
}

#[tokio::test]
async fn websocket_upgrades_need_the_token_and_our_origin() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let token = daemon.token().to_owned();
    for bad in [None, Some("wrong".to_owned()), Some(altered(&token))] {
        let error = tokio_tungstenite::connect_async(ws_request(&daemon, bad.as_deref(), None))
            .await
            .unwrap_err();
        assert_eq!(refused_status(error), 401, "{bad:?}");
    }
    let error = tokio_tungstenite::connect_async(ws_request(
        &daemon,
        Some(&token),
        Some("http://evil.example"),
    ))
    .await
    .unwrap_err();
    assert_eq!(refused_status(error), 403);
    // Our own origin, with the token: a stream that starts with hello.
    let own = daemon.base_url();
    let (mut socket, _) =
        tokio_tungstenite::connect_async(ws_request(&daemon, Some(&token), Some(&own)))
            .await
            .unwrap();
    let first = socket.next().await.unwrap().unwrap().into_text().unwrap();
    let hello: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(hello["event"]["type"], "hello");
    assert_eq!(hello["event"]["pid"], daemon.runtime.pid);
}

#[tokio::test]
async fn a_browser_presents_the_token_as_a_subprotocol() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let mut request = ws_request(&daemon, None, Some(&daemon.base_url()));
    request.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        HeaderValue::from_str(&format!("hailer.v1, hailer.token.{}", daemon.token())).unwrap(),
    );
    let (mut socket, response) = tokio_tungstenite::connect_async(request).await.unwrap();
    assert_eq!(
        response.headers().get("sec-websocket-protocol").unwrap(),
        "hailer.v1"
    );
    let first = socket.next().await.unwrap().unwrap().into_text().unwrap();
    assert!(first.contains("\"hello\""), "{first}");

    let mut wrong = ws_request(&daemon, None, None);
    wrong.headers_mut().insert(
        "Sec-WebSocket-Protocol",
        HeaderValue::from_static("hailer.v1, hailer.token.nope"),
    );
    let error = tokio_tungstenite::connect_async(wrong).await.unwrap_err();
    assert_eq!(refused_status(error), 401);
}
