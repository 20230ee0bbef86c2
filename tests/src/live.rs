//! A session started through the daemon's API, with its event stream read in the background.

use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::TestWorkspace;
use crate::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE};

/// Events of one subscriber, each with the moment it arrived.
pub type Events = mpsc::UnboundedReceiver<(Instant, Value)>;

/// A session of a test workspace, started through `POST /v1/sessions` as an API client, with
/// one subscriber to its event stream.
pub struct LiveSession {
    /// An HTTP client that ignores proxy settings, for the daemon's API.
    pub client: reqwest::Client,
    /// The daemon's address, `http://127.0.0.1:<port>`, without a trailing slash.
    pub base: String,
    /// The daemon's bearer token, from its runtime file.
    pub token: String,
    /// The session id the daemon answered with.
    pub id: String,
    /// The events of the subscription made at start, read from the WebSocket in the
    /// background; it ends when the socket closes.
    pub events: Events,
}

impl LiveSession {
    /// Starts the daemon and the workspace's session (as an API client with the scripted key and
    /// the prepared kernel environment), and subscribes to its events.
    pub async fn start(workspace: &TestWorkspace) -> Self {
        let daemon = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "start"]));
        assert!(daemon.status.success(), "{daemon:?}");
        let (client, base, token) = workspace.api();
        let env = json!({ SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY });
        let started: Value = client
            .post(format!("{base}/v1/sessions"))
            .bearer_auth(&token)
            .json(&json!({"cwd": workspace.path(), "client": "api", "env": env}))
            .send()
            .await
            .unwrap_or_else(|error| panic!("session start: {error}"))
            .json()
            .await
            .unwrap_or_else(|error| panic!("session start reply: {error}"));
        let id = started["session"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no session id in {started}"))
            .to_owned();
        let events = subscribe(&base, &token, &id).await;
        Self {
            client,
            base,
            token,
            id,
            events,
        }
    }

    /// Another subscriber to the same session.
    pub async fn subscribe(&self) -> Events {
        subscribe(&self.base, &self.token, &self.id).await
    }

    /// POSTs to `/v1/sessions/{id}{path}`; the status and the JSON reply.
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}/v1/sessions/{}{path}", self.base, self.id))
            .bearer_auth(&self.token)
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|error| panic!("POST {path}: {error}"));
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Starts a turn; panics unless the daemon accepts it.
    pub async fn ask(&self, text: &str) {
        let (status, body) = self
            .post("/turns", json!({"text": text, "client": "api"}))
            .await;
        assert_eq!(status, 200, "{body}");
    }

    /// Reads events until one of type `kind`: when it arrived, the event, and what came before.
    pub async fn until(&mut self, kind: &str) -> (Instant, Value, Vec<Value>) {
        until(&mut self.events, kind).await
    }
}

/// Reads `events` until one of type `kind`: when it arrived, the event, and what came before.
pub async fn until(events: &mut Events, kind: &str) -> (Instant, Value, Vec<Value>) {
    let mut seen = Vec::new();
    loop {
        let (at, event) = tokio::time::timeout(Duration::from_secs(120), events.recv())
            .await
            .unwrap_or_else(|_| panic!("no {kind} event; saw {seen:?}"))
            .unwrap_or_else(|| panic!("the stream ended before {kind}; saw {seen:?}"));
        if event["type"] == kind {
            return (at, event, seen);
        }
        seen.push(event);
    }
}

/// Subscribes to a session's events.
pub async fn subscribe(base: &str, token: &str, id: &str) -> Events {
    let url = format!(
        "{}/v1/sessions/{id}/events",
        base.replace("http://", "ws://")
    );
    let mut request = url
        .into_client_request()
        .unwrap_or_else(|error| panic!("{error}"));
    request.headers_mut().insert(
        "Authorization",
        HeaderValue::from_str(&format!("Bearer {token}")).unwrap_or_else(|error| panic!("{error}")),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .unwrap_or_else(|error| panic!("subscribe: {error}"));
    let (sender, receiver) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(Ok(message)) = socket.next().await {
            if let Ok(text) = message.into_text()
                && let Ok(envelope) = serde_json::from_str::<Value>(&text)
            {
                let _ = sender.send((Instant::now(), envelope["event"].clone()));
            }
        }
    });
    receiver
}
