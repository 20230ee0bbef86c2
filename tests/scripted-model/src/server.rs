//! The HTTP server: both wire APIs, with and without the `/v1` prefix, plus a small control API
//! (`/__scripted/...`) for tests that run the server as a separate process.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::{Json, Router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};

use crate::deliver::Deliverer;
use crate::record::{Delivery, DeliveryOutcome, RecordedRequest};
use crate::render::{self, RenderContext};
use crate::script::{Fault, Reply, Script, Step};
use crate::validate::{Wire, check_request};

/// State shared by the request handlers and the test that owns the server.
pub(crate) struct Shared {
    steps: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<RecordedRequest>>,
    deliveries: Mutex<Vec<Delivery>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn new(script: Script) -> Self {
        Self {
            steps: Mutex::new(script.steps.into()),
            requests: Mutex::new(Vec::new()),
            deliveries: Mutex::new(Vec::new()),
        }
    }

    fn record(&self, request: RecordedRequest) -> usize {
        let mut requests = lock(&self.requests);
        requests.push(request);
        requests.len() - 1
    }

    fn start_delivery(&self, request_index: usize) -> usize {
        let mut deliveries = lock(&self.deliveries);
        deliveries.push(Delivery {
            request_index,
            frames_sent: 0,
            outcome: DeliveryOutcome::InProgress,
        });
        deliveries.len() - 1
    }

    pub(crate) fn count_frame(&self, delivery: usize) {
        if let Some(entry) = lock(&self.deliveries).get_mut(delivery) {
            entry.frames_sent += 1;
        }
    }

    pub(crate) fn set_outcome(&self, delivery: usize, outcome: DeliveryOutcome) {
        if let Some(entry) = lock(&self.deliveries).get_mut(delivery) {
            entry.outcome = outcome;
        }
    }
}

/// A running scripted model server on 127.0.0.1; stops when dropped.
pub struct ScriptedModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
}

impl ScriptedModel {
    /// Starts a server on a free loopback port.
    pub async fn start(script: Script) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        Self::serve_on(listener, script)
    }

    /// Serves on an already bound listener.
    pub fn serve_on(listener: TcpListener, script: Script) -> io::Result<Self> {
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(script));
        let app = router(Arc::clone(&shared));
        let (shutdown, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            // Frames go out as soon as they are written, as a real streaming endpoint sends them.
            let listener = listener.tap_io(|stream| {
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::warn!(%error, "could not set TCP_NODELAY");
                }
            });
            let serving = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(error) = serving.await {
                tracing::warn!(%error, "the scripted model server stopped");
            }
        });
        Ok(Self {
            addr,
            shared,
            shutdown: Some(shutdown),
        })
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The address the server listens on, `127.0.0.1:<port>` (or the bound listener's own
    /// address with [`ScriptedModel::serve_on`]).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL a client configures: `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every model request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How each reply body's delivery went, in order.
    pub fn deliveries(&self) -> Vec<Delivery> {
        lock(&self.shared.deliveries).clone()
    }

    /// Appends steps to the queue.
    pub fn push(&self, script: Script) {
        lock(&self.shared.steps).extend(script.steps);
    }

    /// How many script steps are still queued, not yet taken by a request.
    pub fn remaining_steps(&self) -> usize {
        lock(&self.shared.steps).len()
    }

    /// Waits until a client closed a connection before its reply body was complete.
    pub async fn wait_for_client_gone(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let gone = lock(&self.shared.deliveries)
                .iter()
                .any(|delivery| delivery.outcome == DeliveryOutcome::ClientGone);
            if gone {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

impl Drop for ScriptedModel {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// The server's routes.
fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/responses", post(responses))
        .route("/responses", post(responses))
        .route("/v1/chat/completions", post(chat))
        .route("/chat/completions", post(chat))
        .route("/__scripted/requests", get(recorded_requests))
        .route("/__scripted/deliveries", get(recorded_deliveries))
        .route("/__scripted/steps", post(push_steps))
        .with_state(shared)
}

async fn responses(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    model_request(shared, Wire::Responses, uri, headers, body).await
}

async fn chat(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    model_request(shared, Wire::Chat, uri, headers, body).await
}

async fn recorded_requests(State(shared): State<Arc<Shared>>) -> Json<Vec<RecordedRequest>> {
    Json(lock(&shared.requests).clone())
}

async fn recorded_deliveries(State(shared): State<Arc<Shared>>) -> Json<Vec<Delivery>> {
    Json(lock(&shared.deliveries).clone())
}

async fn push_steps(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    match serde_json::from_slice::<Script>(&body) {
        Ok(script) => {
            let mut steps = lock(&shared.steps);
            steps.extend(script.steps);
            Json(json!({"remaining": steps.len()})).into_response()
        }
        Err(error) => error_response(
            StatusCode::BAD_REQUEST,
            &format!("Not a script: {error}"),
            None,
        ),
    }
}

fn header_map(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        map.entry(name.as_str().to_owned())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    map
}

fn error_response(status: StatusCode, message: &str, code: Option<&str>) -> Response {
    let kind = match status.as_u16() {
        401 => "authentication_error",
        429 => "rate_limit_exceeded",
        500..=599 => "server_error",
        _ => "invalid_request_error",
    };
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": code}});
    (status, Json(body)).into_response()
}

async fn model_request(
    shared: Arc<Shared>,
    wire: Wire,
    uri: Uri,
    headers: HeaderMap,
    raw: Bytes,
) -> Response {
    let parsed = serde_json::from_slice::<Value>(&raw);
    let body = match &parsed {
        Ok(value) => value.clone(),
        Err(_) => Value::String(String::from_utf8_lossy(&raw).into_owned()),
    };
    let index = shared.record(RecordedRequest {
        wire,
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        headers: header_map(&headers),
        body: body.clone(),
    });
    if let Err(error) = parsed {
        let message = format!("The request body is not valid JSON: {error}");
        return error_response(StatusCode::BAD_REQUEST, &message, None);
    }
    if let Err(message) = check_request(wire, &body) {
        return error_response(StatusCode::BAD_REQUEST, &message, Some("invalid_request"));
    }
    let step = lock(&shared.steps).pop_front();
    match step {
        None => {
            let message = format!("The script has no step left for request #{}.", index + 1);
            error_response(StatusCode::INTERNAL_SERVER_ERROR, &message, None)
        }
        Some(Step::Fault(fault)) => fault_response(&fault, &headers),
        Some(Step::Reply(reply)) => reply_response(shared, wire, index, &body, reply).await,
    }
}

fn fault_response(fault: &Fault, headers: &HeaderMap) -> Response {
    let status = StatusCode::from_u16(fault.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match &fault.raw_body {
        Some(raw) => (status, raw.clone()).into_response(),
        None => {
            let token = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
                .unwrap_or("");
            let message = fault.message.replace("{api_key}", token);
            error_response(status, &message, fault.code.as_deref())
        }
    };
    if let Some(seconds) = fault.retry_after_secs {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, seconds.into());
    }
    response
}

fn render_whole(wire: Wire, ctx: &RenderContext<'_>, reply: &Reply) -> Value {
    match wire {
        Wire::Responses => render::responses::whole(ctx, reply),
        Wire::Chat => render::chat::whole(ctx, reply),
    }
}

async fn reply_response(
    shared: Arc<Shared>,
    wire: Wire,
    index: usize,
    body: &Value,
    reply: Reply,
) -> Response {
    if reply.headers_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.headers_delay_ms)).await;
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let ctx = RenderContext {
        model,
        serial: index + 1,
    };
    let streaming = body.get("stream").and_then(Value::as_bool) == Some(true);
    if !streaming && reply.interruption.is_none() {
        let whole = render_whole(wire, &ctx, &reply);
        shared.set_outcome(shared.start_delivery(index), DeliveryOutcome::Finished);
        return Json(whole).into_response();
    }
    let (tx, mut rx) = mpsc::channel(1);
    let deliverer = Deliverer {
        tx,
        delivery: shared.start_delivery(index),
        shared: Arc::clone(&shared),
    };
    let content_type = if streaming {
        let include_usage = body.pointer("/stream_options/include_usage") == Some(&json!(true));
        let frames = match wire {
            Wire::Responses => render::responses::frames(&ctx, &reply),
            Wire::Chat => render::chat::frames(&ctx, &reply, include_usage),
        };
        tokio::spawn(deliverer.stream_frames(frames, reply));
        "text/event-stream"
    } else {
        let whole = render_whole(wire, &ctx, &reply);
        tokio::spawn(deliverer.whole_body(whole.to_string(), reply.interruption));
        "application/json"
    };
    let stream = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}
