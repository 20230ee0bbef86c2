//! The daemon's limits, seen from a raw socket: malformed requests, body limits, renders that
//! must not stall the other requests.

use std::time::{Duration, Instant};

use hailerd::{AccessToken, DaemonConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A daemon served in this process on a loopback port, stopped when dropped.
struct Served {
    port: u16,
    _dirs: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Served {
    async fn start() -> Self {
        let dirs = tempfile::tempdir().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let config = DaemonConfig {
            token: AccessToken::from_value(TOKEN.to_owned()),
            idle_exit: None,
            heartbeat: Duration::from_secs(60),
            redactor: hailer_redact::Redactor::with_env(Vec::<(String, String)>::new()),
            folders: hailerd::HailerFolders {
                data: dirs.path().join("data"),
                config: dirs.path().join("config"),
                kernel_envs: dirs.path().join("data/kernels"),
            },
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(hailerd::serve(listener, config, async move {
            let _ = stopped.await;
        }));
        Self {
            port,
            _dirs: dirs,
            stop: Some(stop),
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Sends `head` (the request line and headers, without the blank line) and `body`, and returns
    /// the status and the response body.
    async fn raw(&self, head: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let mut request = format!(
            "{head}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        stream.write_all(&request).await.unwrap();
        let mut response = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut response))
            .await
            .expect("the daemon answers")
            .unwrap();
        let text = String::from_utf8_lossy(&response).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {text:?}"));
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .unwrap_or_default();
        (status, body)
    }

    async fn post_json(&self, path: &str, body: &[u8]) -> (u16, String) {
        let host = self.host();
        self.raw(
            &format!("POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json"),
            body,
        )
        .await
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

#[tokio::test]
async fn malformed_targets_and_repeated_headers_are_refused() {
    let daemon = Served::start().await;
    let host = daemon.host();
    let origin = format!("http://{host}");
    let cases = [
        (format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}"), 200),
        (
            format!("GET http://evil.example/v1/daemon HTTP/1.1\r\nHost: {host}"),
            400,
        ),
        (
            format!("POST http://evil.example/v1/daemon/shutdown HTTP/1.1\r\nHost: {host}"),
            400,
        ),
        (
            format!("GET http://{host}/v1/daemon HTTP/1.1\r\nHost: {host}"),
            400,
        ),
        (
            format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nHost: {host}"),
            400,
        ),
        (
            format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nHost: evil.example"),
            400,
        ),
        (
            format!("GET /v1/daemon HTTP/1.1\r\nHost: evil.example\r\nHost: {host}"),
            400,
        ),
        (
            format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}"),
            200,
        ),
        (
            format!(
                "GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
                 Origin: http://evil.example"
            ),
            400,
        ),
        (
            format!(
                "GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nOrigin: http://evil.example\r\n\
                 Origin: {origin}"
            ),
            400,
        ),
    ];
    for (head, expected) in cases {
        let (status, body) = daemon.raw(&head, b"").await;
        assert_eq!(status, expected, "{head:?}: {body}");
    }
}

#[tokio::test]
async fn body_refusals_keep_their_statuses() {
    let daemon = Served::start().await;
    let host = daemon.host();
    let big = format!(r#"{{"markdown": "{}"}}"#, "a".repeat(3 * 1024 * 1024));
    let just_over = format!(r#"{{"markdown": "{}"}}"#, "a".repeat(1024 * 1024 + 1));
    let cases: [(String, Vec<u8>, u16, &str); 7] = [
        (
            "application/json".to_owned(),
            br#"{"markdown": "*hi*"}"#.to_vec(),
            200,
            "",
        ),
        (
            "text/plain".to_owned(),
            br#"{"markdown": "hi"}"#.to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "application/x-www-form-urlencoded".to_owned(),
            b"markdown=hi".to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "application/json".to_owned(),
            big.into_bytes(),
            413,
            "payload_too_large",
        ),
        (
            "application/json".to_owned(),
            just_over.into_bytes(),
            413,
            "payload_too_large",
        ),
        (
            "application/json".to_owned(),
            br#"["hi"]"#.to_vec(),
            400,
            "bad_request",
        ),
        (
            "application/json".to_owned(),
            br#"{"markdown": 1}"#.to_vec(),
            400,
            "bad_request",
        ),
    ];
    for (content_type, body, expected, code) in cases {
        let head =
            format!("POST /v1/render HTTP/1.1\r\nHost: {host}\r\nContent-Type: {content_type}");
        let (status, reply) = daemon.raw(&head, &body).await;
        assert_eq!(status, expected, "{content_type}: {reply}");
        assert!(reply.contains(code), "{content_type}: {reply}");
    }
}

#[tokio::test]
async fn an_exec_time_limit_out_of_range_is_a_clear_refusal() {
    let daemon = Served::start().await;
    for timeout in ["0", "86401", "9223372036854775808", "18446744073709551615"] {
        let body = format!(r#"{{"code": "1", "timeoutSecs": {timeout}}}"#);
        let (status, reply) = daemon
            .post_json("/v1/sessions/no-such-session/exec", body.as_bytes())
            .await;
        assert_eq!(status, 400, "{timeout}: {reply}");
        assert!(reply.contains("from 1 to 86400"), "{timeout}: {reply}");
    }
    // In range, the same request goes on to look for the session.
    let (status, reply) = daemon
        .post_json(
            "/v1/sessions/no-such-session/exec",
            br#"{"code": "1", "timeoutSecs": 60}"#,
        )
        .await;
    assert_eq!(status, 404, "{reply}");
}

/// Markdown nested as deeply as 1 MiB allows, in the ways that cost the renderer most.
fn nested_answers() -> Vec<(&'static str, String)> {
    const SIZE: usize = 1024 * 1024 - 16;
    let fill = |unit: &str| unit.repeat(SIZE / unit.len());
    vec![
        ("block quotes", fill(">")),
        ("block quotes with text", format!("{}x", fill("> "))),
        ("lists", {
            let mut text = String::new();
            let mut indent = 0;
            while text.len() + indent + 4 < SIZE {
                text.push_str(&" ".repeat(indent));
                text.push_str("- a\n");
                indent += 2;
            }
            text
        }),
        ("emphasis", fill("*a _")),
        ("links", fill("[")),
        (
            "links closed",
            format!("{}{}", "[a".repeat(SIZE / 6), "](b)".repeat(SIZE / 6)),
        ),
        ("raw html", fill("<div>")),
        ("raw inline html", format!("a {}", fill("<b>"))),
        ("void tags left open", format!("<hr\n{}", fill("<hr"))),
        ("line breaks", fill("<br>")),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deeply_nested_renders_end_quickly_and_others_are_served() {
    let daemon = std::sync::Arc::new(Served::start().await);
    for (name, markdown) in nested_answers() {
        let body = serde_json::to_vec(&serde_json::json!({ "markdown": markdown })).unwrap();
        // Two at once, as from one answer open in two tabs, and the daemon's info meanwhile.
        let renders: Vec<_> = (0..2)
            .map(|_| {
                let daemon = daemon.clone();
                let body = body.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let (status, _) = daemon.post_json("/v1/render", &body).await;
                    (status, started.elapsed())
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let started = Instant::now();
        let host = daemon.host();
        let (status, reply) = daemon
            .raw(&format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}"), b"")
            .await;
        let info_took = started.elapsed();
        assert_eq!(status, 200, "{reply}");
        assert!(
            info_took < Duration::from_secs(1),
            "{name}: the info took {info_took:?}"
        );
        for render in renders {
            let (status, took) = render.await.unwrap();
            assert!(
                status == 200 || status == 413 || status == 422,
                "{name}: {status}"
            );
            assert!(
                took < Duration::from_secs(2),
                "{name}: {status} took {took:?}"
            );
        }
    }
}

/// Reads until the daemon closes the connection, for at most `limit`; whether it closed.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut sink = Vec::new();
    tokio::time::timeout(limit, stream.read_to_end(&mut sink))
        .await
        .is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_connections_do_not_lock_others_out_and_are_closed() {
    let daemon = Served::start().await;
    let host = daemon.host();
    let address = ("127.0.0.1", daemon.port);
    let mut idle = Vec::new();
    for _ in 0..400 {
        idle.push(TcpStream::connect(address).await.unwrap());
    }
    let mut slow = Vec::new();
    for _ in 0..50 {
        let mut stream = TcpStream::connect(address).await.unwrap();
        stream
            .write_all(format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\n").as_bytes())
            .await
            .unwrap();
        slow.push(stream);
    }
    // A kept-alive connection after one answered request.
    let mut kept = TcpStream::connect(address).await.unwrap();
    kept.write_all(
        format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut first = [0u8; 12];
    kept.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");

    let started = Instant::now();
    let (status, reply) = daemon
        .raw(&format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}"), b"")
        .await;
    let took = started.elapsed();
    assert_eq!(status, 200, "{reply}");
    assert!(took < Duration::from_secs(1), "the info took {took:?}");

    // hyper closes each of them once the header read timeout passes.
    let limit = hailerd::HEADER_READ_TIMEOUT + Duration::from_secs(5);
    assert!(
        closed_within(&mut kept, limit).await,
        "the kept-alive connection stayed open"
    );
    for stream in slow.iter_mut().chain(idle.iter_mut()) {
        assert!(
            closed_within(stream, limit).await,
            "a connection stayed open"
        );
    }
}

/// `{"<field>": "<value>"}` padded with spaces to exactly `size` bytes (still valid JSON).
fn padded(field: &str, value: &str, size: usize) -> Vec<u8> {
    let mut body = format!(r#"{{"{field}": "{value}"}}"#).into_bytes();
    body.resize(size.max(body.len()), b' ');
    body
}

#[tokio::test]
async fn each_route_takes_a_body_sized_to_its_need() {
    let daemon = Served::start().await;
    const KIB: usize = 1024;
    // 404: the body was taken and the session looked for; 413: the body was refused first.
    let cases = [
        (
            "/v1/sessions/s_none/notebooks/open",
            padded("notebook", "x", 8 * KIB),
            404,
        ),
        (
            "/v1/sessions/s_none/notebooks/open",
            padded("notebook", "x", 20 * KIB),
            413,
        ),
        (
            "/v1/sessions/s_none/notebooks/close",
            padded("notebook", "x", 20 * KIB),
            413,
        ),
        (
            "/v1/sessions/s_none/exec",
            padded("code", "1", 1536 * KIB),
            404,
        ),
        (
            "/v1/sessions/s_none/exec",
            padded("code", "1", 2048 * KIB + 1),
            413,
        ),
        (
            "/v1/sessions/s_none/turns",
            padded("text", "hi", 768 * KIB),
            404,
        ),
        (
            "/v1/sessions/s_none/turns",
            padded("text", "hi", 1024 * KIB + 1),
            413,
        ),
        (
            "/v1/sessions/s_none/conversation",
            padded("client", "c", 200 * KIB),
            404,
        ),
        (
            "/v1/sessions/s_none/conversation",
            padded("client", "c", 256 * KIB + 1),
            413,
        ),
        ("/v1/sessions", padded("cwd", "/", 256 * KIB + 1), 413),
        (
            "/v1/kernel/stop",
            padded("workspace", "/", 256 * KIB + 1),
            413,
        ),
    ];
    for (path, body, expected) in cases {
        let size = body.len();
        let (status, reply) = daemon.post_json(path, &body).await;
        assert_eq!(status, expected, "{path} with {size} bytes: {reply}");
        if expected == 413 {
            assert!(reply.contains("payload_too_large"), "{path}: {reply}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_the_oldest_idle_connections_make_room() {
    let daemon = Served::start().await;
    let host = daemon.host();
    let address = ("127.0.0.1", daemon.port);
    let mut held = Vec::new();
    for _ in 0..600 {
        held.push(TcpStream::connect(address).await.unwrap());
    }
    // The oldest are closed long before the header read timeout would close them.
    let started = Instant::now();
    for stream in held.iter_mut().take(50) {
        assert!(
            closed_within(stream, Duration::from_secs(3)).await,
            "an old idle connection stayed open"
        );
    }
    assert!(started.elapsed() < hailerd::HEADER_READ_TIMEOUT);
    // The newest one is still served.
    let newest = held.last_mut().unwrap();
    newest
        .write_all(
            format!(
                "GET /v1/daemon HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {TOKEN}\r\n\
                 Connection: close\r\n\r\n"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), newest.read_to_end(&mut reply))
        .await
        .unwrap()
        .unwrap();
    assert!(
        reply.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
}

#[tokio::test]
async fn unknown_fields_and_bodies_sent_to_bodiless_routes_are_refused() {
    let daemon = Served::start().await;
    // Each body would be taken without its extra field; with it, it is refused before the
    // route looks at anything (a session that does not exist included).
    let extra: [(&str, &str); 9] = [
        ("/v1/render", r#"{"markdown": "hi", "surprise": 1}"#),
        ("/v1/docker/status", r#"{"image": "x", "surprise": 1}"#),
        ("/v1/status", r#"{"session": {"cwd": "/"}, "surprise": 1}"#),
        ("/v1/status", r#"{"session": {"cwd": "/", "surprise": 1}}"#),
        ("/v1/credentials/check", r#"{"cwd": "/", "surprise": 1}"#),
        ("/v1/kernel/stop", r#"{"workspace": "/x", "surprise": 1}"#),
        (
            "/v1/sessions/none/probe",
            r#"{"tokenPaths": [], "surprise": 1}"#,
        ),
        ("/v1/sessions/none/exec", r#"{"code": "1", "surprise": 1}"#),
        (
            "/v1/sessions/none/turns",
            r#"{"text": "hi", "surprise": 1}"#,
        ),
    ];
    for (path, body) in extra {
        let (status, reply) = daemon.post_json(path, body.as_bytes()).await;
        assert_eq!(status, 400, "{path} {body}: {reply}");
        assert!(
            reply.contains("unknown field `surprise`"),
            "{path}: {reply}"
        );
    }
    let host = daemon.host();
    for head in [
        format!("DELETE /v1/sessions/none HTTP/1.1\r\nHost: {host}"),
        format!("POST /v1/sessions/none/cancel HTTP/1.1\r\nHost: {host}"),
        format!("POST /v1/daemon/shutdown HTTP/1.1\r\nHost: {host}"),
    ] {
        let (status, reply) = daemon.raw(&head, br#"{"now": true}"#).await;
        assert_eq!(status, 400, "{head}: {reply}");
        assert!(reply.contains("takes no request body"), "{head}: {reply}");
    }
    // The refused shutdown did not stop the daemon.
    let (status, _) = daemon
        .raw(&format!("GET /v1/daemon HTTP/1.1\r\nHost: {host}"), b"")
        .await;
    assert_eq!(status, 200);
}
