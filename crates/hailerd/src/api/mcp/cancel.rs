//! Cancelling an MCP call over Streamable HTTP. The route serves each message on its own (rmcp's
//! stateless mode), so a client's `notifications/cancelled`, sent in a POST of its own as the
//! protocol asks before its 2026 revision, would reach no running call there. The calls running
//! are kept here by session and JSON-RPC request id instead, and the route cancels the one a
//! cancellation names before rmcp sees it. (`hailer mcp` cancels by closing the call's request,
//! which stops it too.)
//!
//! Without MCP sessions the daemon cannot tell two clients apart: when two running calls of one
//! session have the id a cancellation names, neither is cancelled.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A session's id and a request's JSON-RPC id (as JSON text).
type Key = (String, String);

/// The calls running, each with a number of its own.
type Calls = HashMap<Key, Vec<(u64, CancellationToken)>>;

static RUNNING: LazyLock<Mutex<Calls>> = LazyLock::new(Mutex::default);
static SERIAL: AtomicU64 = AtomicU64::new(0);

fn running() -> MutexGuard<'static, Calls> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A call kept as running until dropped.
pub(super) struct RunningCall {
    key: Key,
    serial: u64,
}

impl RunningCall {
    /// Keeps the call `request` (its JSON-RPC id as JSON text) of `session`, stopped through
    /// `cancel`.
    pub(super) fn enter(session: &str, request: String, cancel: CancellationToken) -> Self {
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let key = (session.to_owned(), request);
        running()
            .entry(key.clone())
            .or_default()
            .push((serial, cancel));
        Self { key, serial }
    }
}

impl Drop for RunningCall {
    fn drop(&mut self) {
        let mut calls = running();
        if let Some(same_id) = calls.get_mut(&self.key) {
            same_id.retain(|(serial, _)| *serial != self.serial);
            if same_id.is_empty() {
                calls.remove(&self.key);
            }
        }
    }
}

/// The request id (as JSON text) a JSON-RPC message cancels, when it is a cancellation.
pub(super) fn cancelled_request(body: &[u8]) -> Option<String> {
    let message: Value = serde_json::from_slice(body).ok()?;
    if message.get("method")?.as_str()? != "notifications/cancelled" {
        return None;
    }
    Some(message.get("params")?.get("requestId")?.to_string())
}

/// Cancels the running call `request` of `session`, when exactly one has that id; whether one
/// was cancelled.
pub(super) fn cancel(session: &str, request: &str) -> bool {
    let calls = running();
    match calls
        .get(&(session.to_owned(), request.to_owned()))
        .map(Vec::as_slice)
    {
        Some([(_, only)]) => {
            only.cancel();
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancellation_stops_the_one_call_with_its_id_and_no_other() {
        let message =
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#;
        assert_eq!(cancelled_request(message).as_deref(), Some("7"));
        assert_eq!(
            cancelled_request(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#),
            None
        );

        let seven = CancellationToken::new();
        let other_session = CancellationToken::new();
        let call = RunningCall::enter("s1", "7".to_owned(), seven.clone());
        let _elsewhere = RunningCall::enter("s2", "7".to_owned(), other_session.clone());
        assert!(!cancel("s1", "8"));
        assert!(cancel("s1", "7"));
        assert!(seven.is_cancelled());
        assert!(!other_session.is_cancelled());
        drop(call);
        assert!(!cancel("s1", "7"), "an ended call is forgotten");

        // Two clients' calls with one id: the daemon cannot tell which was meant.
        let first = CancellationToken::new();
        let second = CancellationToken::new();
        let _a = RunningCall::enter("s3", "\"a\"".to_owned(), first.clone());
        let _b = RunningCall::enter("s3", "\"a\"".to_owned(), second.clone());
        assert!(!cancel("s3", "\"a\""));
        assert!(!first.is_cancelled() && !second.is_cancelled());
    }
}
