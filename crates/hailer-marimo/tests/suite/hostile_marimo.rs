//! The client against a fake marimo that misbehaves: endless lines, floods, stalls, HTML error
//! pages, stale server tokens. Every call must end with a bounded, readable error; a run that
//! prints too much keeps a bounded part of it and says what was left out.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::stream;
use hailer_marimo::{ClientOptions, Error, MarimoClient};
use secrecy::SecretString;
use serde_json::{Value, json};

const TOKEN: &str = "fake-access-token";
const NOTEBOOK: &str = "/nb/analysis.py";

#[derive(Default)]
struct Counters {
    home_page_reads: AtomicUsize,
    instantiate_calls: AtomicUsize,
    shutdowns: AtomicUsize,
}

type Shared = Arc<Counters>;

fn authorized(headers: &HeaderMap) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        == Some(&format!("Bearer {TOKEN}"))
}

fn sse(body: Body) -> Response {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .body(body)
        .unwrap()
}

/// A body that yields `chunk` forever (until the client goes away).
fn endless(prefix: &'static str, chunk: Bytes) -> Body {
    let head = stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(prefix)) });
    let tail = stream::unfold(chunk, |chunk| async move {
        Some((Ok::<_, std::io::Error>(chunk.clone()), chunk))
    });
    Body::from_stream(futures_util::StreamExt::chain(head, tail))
}

/// A body that sends `first` and then never sends anything again.
fn stalled(first: &'static str) -> Body {
    let head = stream::once(async move { Ok::<_, std::io::Error>(Bytes::from(first)) });
    let never = stream::pending::<Result<Bytes, std::io::Error>>();
    Body::from_stream(futures_util::StreamExt::chain(head, never))
}

async fn home(State(counters): State<Shared>, headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let n = counters.home_page_reads.fetch_add(1, Ordering::SeqCst);
    let html = format!("<html><marimo-server-token data-token=\"skew-{n}\" hidden></html>");
    ([(header::CONTENT_TYPE, "text/html")], html).into_response()
}

async fn sessions(headers: HeaderMap) -> Response {
    if !authorized(&headers) {
        return (
            StatusCode::UNAUTHORIZED,
            r#"{"detail":"Authorization header required"}"#,
        )
            .into_response();
    }
    axum::Json(json!({"s_1": {"filename": NOTEBOOK, "path": NOTEBOOK}})).into_response()
}

async fn session_stream(Query(query): Query<Vec<(String, String)>>) -> Response {
    let file = query
        .iter()
        .find(|(k, _)| k == "file")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    if file.ends_with("missing.py") {
        return sse(Body::empty());
    }
    if file.ends_with("closing.py") {
        return sse(Body::from(
            "event: close\ndata: {\"code\": 1000, \"reason\": \"MARIMO_SHUTDOWN\"}\n\n",
        ));
    }
    if file.ends_with("stalling.py") {
        return sse(stalled(": keep-alive\n\n"));
    }
    sse(stalled(
        "data: {\"op\": \"kernel-ready\", \"data\": {\"op\": \"kernel-ready\"}}\n\n",
    ))
}

async fn instantiate(State(counters): State<Shared>, headers: HeaderMap) -> Response {
    let n = counters.instantiate_calls.fetch_add(1, Ordering::SeqCst);
    let skew = headers
        .get("marimo-server-token")
        .and_then(|v| v.to_str().ok());
    // The first call finds a server token from "an earlier server run".
    if n == 0 || skew == Some("skew-0") {
        return (
            StatusCode::UNAUTHORIZED,
            r#"{"error":"Invalid server token"}"#,
        )
            .into_response();
    }
    axum::Json(json!({"success": true})).into_response()
}

async fn shutdown(State(counters): State<Shared>) -> Response {
    counters.shutdowns.fetch_add(1, Ordering::SeqCst);
    axum::Json(json!({"files": []})).into_response()
}

async fn status() -> Response {
    axum::Json(json!({"state": "running"})).into_response()
}

async fn execute(body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let code = request["code"].as_str().unwrap_or_default().to_owned();
    match code.as_str() {
        "endless-line" => sse(endless("event: stdout\ndata: ", Bytes::from(vec![b'x'; 65536]))),
        "flood" => {
            let event = format!("event: stdout\ndata: {{\"data\": \"{}\"}}\n\n", "y".repeat(65000));
            sse(endless("", Bytes::from(event)))
        }
        "one-huge-event" => {
            let huge = "z".repeat(17 * 1024 * 1024);
            let body = format!(
                "event: stdout\ndata: {{\"data\": \"before\\n\"}}\n\nevent: stdout\ndata: {{\"data\": \"{huge}\"}}\n\nevent: stdout\ndata: {{\"data\": \"after\\n\"}}\n\nevent: done\ndata: {{\"success\": true}}\n\n"
            );
            sse(Body::from(body))
        }
        "no-done" => sse(stalled("event: stdout\ndata: {\"data\": \"working\\n\"}\n\n")),
        "html-500" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "text/html")],
            "<!DOCTYPE html><html><head><title>Internal Server Error</title></head><body>boom</body></html>",
        )
            .into_response(),
        "json-400" => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"detail":"Object missing required field `code`"}"#,
        )
            .into_response(),
        "not-sse" => axum::Json(json!({"ok": true})).into_response(),
        "cut" => sse(Body::from("event: stdout\ndata: {\"data\": \"partial\"}\n\n")),
        "stall-headers" => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::OK.into_response()
        }
        _ => sse(Body::from(
            "event: stderr\ndata: {\"data\": \"warn\\n\"}\n\nevent: stdout\ndata: {\"data\": \"ok\\n\"}\n\n\
             event: done\ndata: {\"success\": true, \"output\": {\"mimetype\": \"text/plain\", \"data\": \"\"}}\n\n",
        )),
    }
}

async fn stalled_reply() -> Response {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    StatusCode::OK.into_response()
}

struct Fake {
    client: MarimoClient,
    counters: Shared,
}

async fn start_fake() -> Fake {
    let counters = Shared::default();
    let app = Router::new()
        .route("/", get(home))
        .route("/api/sessions", get(sessions))
        .route("/sse", get(session_stream))
        .route("/api/kernel/instantiate", post(instantiate))
        .route("/api/kernel/execute", post(execute))
        .route("/api/kernel/status", get(status))
        .route("/api/home/shutdown_session", post(shutdown))
        .route("/api/files/list_files", post(stalled_reply))
        .with_state(counters.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    let options = ClientOptions {
        request_timeout: Duration::from_secs(1),
        open_timeout: Duration::from_secs(2),
        ..ClientOptions::default()
    };
    let client = MarimoClient::with_options(
        &format!("http://{address}"),
        SecretString::from(TOKEN),
        options,
    )
    .unwrap();
    Fake { client, counters }
}

async fn run(
    fake: &Fake,
    code: &str,
    budget: Duration,
) -> (Result<hailer_marimo::ExecOutcome, Error>, Duration) {
    let started = Instant::now();
    let result = tokio::time::timeout(
        budget + Duration::from_secs(10),
        fake.client.execute(Path::new(NOTEBOOK), code, budget),
    )
    .await
    .expect("the call hung far past its deadline");
    (result, started.elapsed())
}

#[tokio::test]
async fn a_normal_run_collects_both_streams() {
    let fake = start_fake().await;
    let (result, _) = run(&fake, "print('ok')", Duration::from_secs(5)).await;
    let outcome = result.unwrap();
    assert_eq!(outcome.stdout, "ok\n");
    assert_eq!(outcome.stderr, "warn\n");
    assert!(outcome.success);
    assert_eq!(outcome.output, None);
    assert_eq!(outcome.session_id, "s_1");
}

/// A line without end is counted, never kept (no more than the cap of it is held at once), and
/// the run ends at its deadline.
#[tokio::test]
async fn an_endless_line_is_not_kept_and_the_run_ends_at_its_deadline() {
    let fake = start_fake().await;
    let (result, elapsed) = run(&fake, "endless-line", Duration::from_secs(3)).await;
    let error = result.unwrap_err();
    assert!(matches!(error, Error::KernelRestarted { .. }), "{error}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

/// A run that prints without end is read, what is kept of it bounded, until its deadline: a
/// long print is not an error, a run that never ends is.
#[tokio::test]
async fn an_endless_flood_of_events_ends_at_the_deadline() {
    let fake = start_fake().await;
    let (result, elapsed) = run(&fake, "flood", Duration::from_secs(3)).await;
    let error = result.unwrap_err();
    assert!(matches!(error, Error::KernelRestarted { .. }), "{error}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn one_event_over_the_cap_is_left_out_and_said_and_the_run_goes_on() {
    let fake = start_fake().await;
    let (result, _) = run(&fake, "one-huge-event", Duration::from_secs(30)).await;
    let outcome = result.unwrap();
    assert!(outcome.success);
    assert!(outcome.stdout.starts_with("before\n"), "{}", outcome.stdout);
    assert!(
        outcome.stdout.contains("MB of output left out here"),
        "{}",
        outcome.stdout
    );
    assert!(outcome.stdout.ends_with("after\n"), "{}", outcome.stdout);
}

#[tokio::test]
async fn a_run_without_done_ends_at_the_deadline_and_restarts_the_session() {
    let fake = start_fake().await;
    let (result, elapsed) = run(&fake, "no-done", Duration::from_millis(1500)).await;
    let error = result.unwrap_err();
    assert!(matches!(error, Error::KernelRestarted { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("did not finish the run within 1.5 s"),
        "{error}"
    );
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    // The stuck session is closed in the background, and the next run reports the fresh one.
    let (next, _) = run(&fake, "print('ok')", Duration::from_secs(5)).await;
    assert!(next.unwrap().fresh_session);
    assert_eq!(fake.counters.shutdowns.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn headers_that_never_come_end_at_the_deadline() {
    let fake = start_fake().await;
    let (result, elapsed) = run(&fake, "stall-headers", Duration::from_secs(1)).await;
    assert!(
        matches!(result, Err(Error::KernelRestarted { .. })),
        "{result:?}"
    );
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test]
async fn an_html_error_page_becomes_a_short_message() {
    let fake = start_fake().await;
    let (result, _) = run(&fake, "html-500", Duration::from_secs(5)).await;
    let error = result.unwrap_err();
    assert!(
        matches!(error, Error::Status { status: 500, .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("an HTML error page: Internal Server Error"),
        "{error}"
    );
}

#[tokio::test]
async fn json_errors_and_non_streams_are_reported() {
    let fake = start_fake().await;
    let (result, _) = run(&fake, "json-400", Duration::from_secs(5)).await;
    let error = result.unwrap_err();
    assert!(error.to_string().contains("HTTP 400"), "{error}");
    assert!(
        error.to_string().contains("missing required field"),
        "{error}"
    );

    let (result, _) = run(&fake, "not-sse", Duration::from_secs(5)).await;
    let error = result.unwrap_err();
    assert!(
        error.to_string().contains("expected an event stream"),
        "{error}"
    );

    let (result, _) = run(&fake, "cut", Duration::from_secs(5)).await;
    assert!(matches!(result, Err(Error::StreamCut)), "{result:?}");
}

#[tokio::test]
async fn a_stale_server_token_is_fetched_again_once() {
    let fake = start_fake().await;
    fake.client.instantiate("s_1").await.unwrap();
    assert_eq!(fake.counters.home_page_reads.load(Ordering::SeqCst), 2);
    assert_eq!(fake.counters.instantiate_calls.load(Ordering::SeqCst), 2);
    // The fresh token is cached from then on.
    fake.client.instantiate("s_1").await.unwrap();
    assert_eq!(fake.counters.home_page_reads.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_stalled_reply_times_out() {
    let fake = start_fake().await;
    let started = Instant::now();
    let error = fake.client.list_files(None).await.unwrap_err();
    assert!(matches!(error, Error::Timeout { .. }), "{error}");
    assert!(
        error.to_string().contains("did not finish within"),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn opening_a_session_fails_clearly() {
    let fake = start_fake().await;
    let error = fake
        .client
        .open_session(Path::new("/nb/missing.py"))
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the notebook file does not exist"),
        "{error}"
    );

    let error = fake
        .client
        .open_session(Path::new("/nb/closing.py"))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("marimo closed the session"),
        "{error}"
    );
    assert!(error.to_string().contains("MARIMO_SHUTDOWN"), "{error}");

    let started = Instant::now();
    let error = fake
        .client
        .open_session(Path::new("/nb/stalling.py"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Timeout { .. }), "{error}");
    assert!(started.elapsed() < Duration::from_secs(4));

    let id = fake
        .client
        .open_session(Path::new("/nb/new.py"))
        .await
        .unwrap();
    assert!(id.starts_with("s_hailer_"), "{id}");
}
