//! `hailer mcp`: the workspace's session as a Model Context Protocol server on standard input
//! and output, for agents that start their tools as programs.
//!
//! The client stays thin: it attaches to the workspace's session like any client (and keeps
//! its event stream open, so the session counts it as attached), then relays each JSON-RPC
//! message it reads, one per line, to the daemon's `/v1/sessions/{id}/mcp` route, and writes
//! the replies back, one per line. hailerd's MCP server (rmcp) answers them; nothing of the
//! protocol is decided here, but for one thing: a `notifications/cancelled` closes the
//! connection of the request it names, which stops that call in the daemon (and no other
//! client's call with the same id).

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hailer_config::HailerHome;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::sync::{Mutex, mpsc};
use tokio::task::AbortHandle;

use crate::daemon_client;
use crate::http::{Endpoint, Reply};
use crate::session_client::{self, SessionFlags};

/// The client name the session and its audit trail see.
const CLIENT: &str = "mcp";

/// How long one message may take: a tool call waits for the kernel to start, then runs for at
/// most 300 s.
const MESSAGE_TIMEOUT: Duration = Duration::from_secs(1800);

/// The session messages are relayed to; replaced when the daemon no longer knows it.
struct Target {
    endpoint: Endpoint,
    flags: SessionFlags,
    session: Mutex<String>,
}

pub(crate) async fn run(home: &HailerHome, flags: SessionFlags) -> anyhow::Result<ExitCode> {
    let connected = daemon_client::find_or_start(home).await?;
    let endpoint = connected.endpoint;
    let started = session_client::start_as(&endpoint, &flags, CLIENT).await?;
    for warning in &started.session.warnings {
        eprintln!("warning: {warning}");
    }
    let id = started.session.id;
    stay_attached(&endpoint, &id);
    let target = Arc::new(Target {
        endpoint,
        flags,
        session: Mutex::new(id),
    });

    let (replies, mut outgoing) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outgoing.recv().await {
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut running = tokio::task::JoinSet::new();
    // The requests being relayed, by JSON-RPC id: a cancellation ends its request's relay.
    let in_flight: InFlight = Arc::default();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let message = serde_json::from_str::<Value>(&line).ok();
        if let Some(request) = message.as_ref().and_then(cancelled_request) {
            // Closing the request's connection stops the call in the daemon, and only this
            // client's: another agent's `hailer mcp` may number its requests alike. The
            // cancelled request gets no reply, as the protocol asks.
            if let Some(relay) = lock(&in_flight).remove(&request) {
                relay.abort();
            }
            continue;
        }
        let key = message
            .as_ref()
            .filter(|message| message.get("method").is_some())
            .and_then(|message| message.get("id"))
            .map(Value::to_string);
        let target = Arc::clone(&target);
        let replies = replies.clone();
        let mine = Arc::clone(&in_flight);
        // Held while the relay is spawned and entered, so it cannot end before it is known.
        let mut held = lock(&in_flight);
        let relay = running.spawn(async move {
            for reply in target.relay(line).await {
                let _ = replies.send(reply);
            }
            if let Some(key) = key_of_task(&mine) {
                lock(&mine).remove(&key);
            }
        });
        if let Some(key) = key {
            held.insert(key, relay);
        }
        drop(held);
    }
    while running.join_next().await.is_some() {}
    drop(replies);
    let _ = writer.await;
    Ok(ExitCode::SUCCESS)
}

/// The relays of requests still running, by their JSON-RPC id (as JSON text).
type InFlight = Arc<std::sync::Mutex<HashMap<String, AbortHandle>>>;

fn lock(in_flight: &InFlight) -> std::sync::MutexGuard<'_, HashMap<String, AbortHandle>> {
    in_flight
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The id the running task was entered under, when it is a relay of a request.
fn key_of_task(in_flight: &InFlight) -> Option<String> {
    let me = tokio::task::try_id()?;
    lock(in_flight)
        .iter()
        .find(|(_, relay)| relay.id() == me)
        .map(|(key, _)| key.clone())
}

/// The id (as JSON text) of the request a `notifications/cancelled` message cancels.
fn cancelled_request(message: &Value) -> Option<String> {
    if message.get("method")?.as_str()? != "notifications/cancelled" {
        return None;
    }
    Some(message.get("params")?.get("requestId")?.to_string())
}

/// Keeps the session's event stream open in the background, so the session counts this client
/// as attached while it runs.
fn stay_attached(endpoint: &Endpoint, session: &str) {
    let endpoint = endpoint.clone();
    let session = session.to_owned();
    tokio::spawn(async move {
        loop {
            if let Ok(mut socket) = session_client::follow_events(&endpoint, &session).await {
                while session_client::next_text(&mut socket).await.is_some() {}
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    });
}

impl Target {
    /// Relays one message; the lines to write back (none for a notification).
    async fn relay(&self, line: String) -> Vec<String> {
        let id = serde_json::from_str::<Value>(&line)
            .ok()
            .and_then(|message| message.get("id").cloned());
        let mut reply = self.post(line.clone()).await;
        if matches!(&reply, Ok(reply) if reply.status == 404 && self.reattach().await) {
            reply = self.post(line).await;
        }
        match reply {
            Ok(reply) => replies_of(&reply, id.as_ref()),
            Err(error) => id
                .map(|id| vec![failure(&id, &format!("{error:#}"))])
                .unwrap_or_default(),
        }
    }

    async fn post(&self, line: String) -> anyhow::Result<Reply> {
        let path = format!("/v1/sessions/{}/mcp", self.session.lock().await);
        self.endpoint
            .post_mcp(&path, line.into_bytes(), MESSAGE_TIMEOUT)
            .await
    }

    /// Attaches to the workspace's session again (the daemon restarted, or the session was
    /// stopped); whether that worked.
    async fn reattach(&self) -> bool {
        match session_client::start_as(&self.endpoint, &self.flags, CLIENT).await {
            Ok(started) => {
                stay_attached(&self.endpoint, &started.session.id);
                *self.session.lock().await = started.session.id;
                true
            }
            Err(error) => {
                eprintln!("hailer mcp: cannot attach to the workspace's session again: {error:#}");
                false
            }
        }
    }
}

/// The JSON-RPC messages of a reply: its JSON body, or each `data:` event of an event stream.
/// A refusal of hailerd's own (no JSON-RPC in it) answers the request `id` as a JSON-RPC error
/// with the daemon's words.
fn replies_of(reply: &Reply, id: Option<&Value>) -> Vec<String> {
    let body = String::from_utf8_lossy(&reply.body);
    let text = body.trim();
    if text.is_empty() {
        return Vec::new();
    }
    if let Ok(message) = serde_json::from_str::<Value>(text) {
        if message.get("jsonrpc").is_some() || message.is_array() {
            // As sent, unless it spans lines: the stdio transport is one message a line.
            return vec![if text.contains('\n') {
                message.to_string()
            } else {
                text.to_owned()
            }];
        }
        let said = reply
            .error_body()
            .map(|error| match error.hint {
                Some(hint) => format!("{} {hint}", error.message),
                None => error.message,
            })
            .unwrap_or_else(|| format!("hailerd answered {}: {text}", reply.status));
        return id.map(|id| vec![failure(id, &said)]).unwrap_or_default();
    }
    events_of(text)
}

/// The data of each event of an event stream, the lines of one event joined.
fn events_of(stream: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in stream.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if !data.is_empty() {
                events.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    events
        .into_iter()
        .filter(|event| !event.trim().is_empty())
        .collect()
}

/// A JSON-RPC error answering `id`.
fn failure(id: &Value, message: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32603, "message": message},
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use bytes::Bytes;

    use super::*;

    fn reply(status: u16, body: &str) -> Reply {
        Reply {
            status,
            body: Bytes::from(body.to_owned()),
        }
    }

    #[test]
    fn json_replies_pass_through_and_notifications_get_none() {
        let body = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert_eq!(
            replies_of(&reply(200, body), Some(&json!(1))),
            vec![body.to_owned()]
        );
        assert!(replies_of(&reply(202, ""), None).is_empty());
    }

    #[test]
    fn event_streams_give_each_event_once() {
        let stream =
            "id: 0\nretry: 3000\ndata: \n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
        assert_eq!(
            replies_of(&reply(200, stream), Some(&json!(2))),
            vec![r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_owned()]
        );
    }

    #[test]
    fn cancellations_name_the_request_they_cancel() {
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": 7, "reason": "stop"}});
        assert_eq!(cancelled_request(&cancel).as_deref(), Some("7"));
        let by_name = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": "a"}});
        assert_eq!(cancelled_request(&by_name).as_deref(), Some("\"a\""));
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call"});
        assert_eq!(cancelled_request(&call), None);
        // The key a request is entered under is the same JSON text of its id.
        assert_eq!(call["id"].to_string(), "7");
    }

    #[test]
    fn daemon_refusals_become_json_rpc_errors_with_its_words() {
        let body =
            r#"{"code":"not_found","message":"no such session","hint":"Run hailer status."}"#;
        let lines = replies_of(&reply(404, body), Some(&json!("a")));
        let error: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(error["id"], "a");
        assert_eq!(
            error["error"]["message"],
            "no such session Run hailer status."
        );
        assert!(replies_of(&reply(404, body), None).is_empty());
    }
}
