//! Kernel sessions without a browser: list, resolve by path, open, instantiate, probe, close.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use reqwest::Method;
use reqwest::header::ACCEPT;
use serde::Deserialize;
use serde_json::json;

use super::MarimoClient;
use super::http::{Deadline, status_error};
use super::notebook_state::NotebookState;
use crate::access_token::new_session_id;
use crate::error::{Error, Result};
use crate::sse::{SseLimit, SseParser};

/// A live session for one notebook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionHandle {
    /// marimo's session id (it changes when a browser later opens the notebook).
    pub id: String,
    /// The notebook's path as marimo reported or was given it.
    pub notebook: PathBuf,
    /// True when this call opened the session (its cells were just started).
    pub opened: bool,
}

/// What `/api/kernel/status` says about a session's kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelState {
    /// `idle`: the kernel process is alive and runs nothing.
    Idle,
    /// `running`: the kernel is running code, this client's or a browser's.
    Running,
    /// The kernel process is gone (or never started).
    Stopped,
    /// A state this client does not know.
    Other(String),
}

#[derive(Debug, Deserialize)]
struct SessionEntry {
    filename: Option<String>,
    path: Option<String>,
}

#[derive(Debug, Deserialize)]
struct StatusReply {
    state: String,
}

/// Two notebook paths name the same file (resolving links when both exist).
fn same_notebook(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

impl MarimoClient {
    /// Every session: marimo's session id and the notebook path it serves.
    pub async fn list_sessions(&self) -> Result<Vec<(String, PathBuf)>> {
        let what = "listing marimo's sessions";
        let deadline = self.request_deadline();
        let response = self.get("/api/sessions", None, what, deadline).await?;
        let entries: BTreeMap<String, SessionEntry> =
            self.json_reply(response, what, deadline).await?;
        Ok(entries
            .into_iter()
            .filter_map(|(id, entry)| {
                entry
                    .path
                    .or(entry.filename)
                    .map(|p| (id, PathBuf::from(p)))
            })
            .collect())
    }

    /// The id of the session serving `notebook`, if any (looked up afresh every time, since
    /// the id changes when a browser opens the notebook).
    pub async fn resolve_session(&self, notebook: &Path) -> Result<Option<String>> {
        let sessions = self.list_sessions().await?;
        Ok(sessions
            .into_iter()
            .rev()
            .find(|(_, path)| same_notebook(path, notebook))
            .map(|(id, _)| id))
    }

    /// Opens a kernel session for `notebook` (an absolute path inside the served folder)
    /// without a browser: reads marimo's session stream until the kernel is ready, then closes
    /// it so a browser opening the notebook later can still edit. Returns the new session id.
    pub async fn open_session(&self, notebook: &Path) -> Result<String> {
        let what = "opening a kernel session";
        let deadline = Deadline::after(self.options().open_timeout);
        let file = notebook.to_str().ok_or_else(|| {
            Error::InvalidInput(format!(
                "the notebook path {} is not valid UTF-8, which marimo cannot be sent",
                notebook.display()
            ))
        })?;
        let id = new_session_id();
        let http = &self.inner.http;
        let mut url = http.url("/sse");
        url.query_pairs_mut()
            .append_pair("session_id", &id)
            .append_pair("file", file);
        let request = http
            .request(Method::GET, url)
            .header(ACCEPT, "text/event-stream");
        let mut response = http.send(request, what, deadline).await?;
        let cap = self.options().max_reply_bytes;
        if !response.status().is_success() {
            return Err(status_error(response, cap, what, deadline).await);
        }
        let failed = |reason: String| Error::SessionOpenFailed {
            path: notebook.to_owned(),
            reason,
        };
        let mut parser = SseParser::new(cap, cap);
        let mut received = 0usize;
        loop {
            let chunk = match deadline.run(what, response.chunk()).await? {
                Ok(Some(chunk)) => chunk,
                Ok(None) if received == 0 => {
                    return Err(Error::NotebookMissing {
                        path: notebook.to_owned(),
                    });
                }
                Ok(None) => {
                    return Err(failed(
                        "the session stream ended before the kernel was ready".to_owned(),
                    ));
                }
                Err(e) => return Err(Error::transport(what, &e)),
            };
            received += chunk.len();
            let events = parser
                .feed(&chunk)
                .map_err(|limit| too_large(what, limit))?;
            for event in events {
                if event.event == "close" {
                    return Err(failed(format!(
                        "marimo closed the session ({})",
                        event.data
                    )));
                }
                let op = serde_json::from_str::<serde_json::Value>(&event.data)
                    .ok()
                    .and_then(|v| v.get("op").and_then(|op| op.as_str()).map(str::to_owned));
                if op.as_deref() == Some("kernel-ready") {
                    // Dropping the response closes the stream; the session stays alive.
                    return Ok(id);
                }
            }
        }
    }

    /// Runs the notebook's cells in a freshly opened session (marimo does not on its own).
    pub async fn instantiate(&self, session_id: &str) -> Result<()> {
        let what = "starting the notebook's cells";
        let body = json!({"objectIds": [], "values": [], "autoRun": true});
        let deadline = self.request_deadline();
        self.post_json(
            "/api/kernel/instantiate",
            &body,
            Some(session_id),
            what,
            deadline,
        )
        .await
        .map(drop)
    }

    /// The session for `notebook`: the existing one, or a new one whose cells were started.
    pub async fn ensure_session(&self, notebook: &Path) -> Result<SessionHandle> {
        let state = self.inner.notebooks.get(notebook);
        let mut state = state.lock().await;
        self.ensure_session_locked(notebook, &mut state).await
    }

    pub(super) async fn ensure_session_locked(
        &self,
        notebook: &Path,
        state: &mut NotebookState,
    ) -> Result<SessionHandle> {
        if let Some(id) = self.resolve_session(notebook).await? {
            state.seen_session = true;
            return Ok(SessionHandle {
                id,
                notebook: notebook.to_owned(),
                opened: false,
            });
        }
        // The server token that instantiate needs is fetched while the kernel starts.
        let (opened, _) = tokio::join!(
            self.open_session(notebook),
            self.server_token(self.request_deadline(), false)
        );
        let id = opened?;
        self.instantiate(&id).await?;
        if state.seen_session {
            state.fresh_pending = true;
        }
        state.seen_session = true;
        Ok(SessionHandle {
            id,
            notebook: notebook.to_owned(),
            opened: true,
        })
    }

    /// The state of the kernel serving `notebook`.
    pub async fn kernel_status(&self, notebook: &Path) -> Result<KernelState> {
        let id = self.require_session(notebook).await?;
        self.kernel_status_of(&id).await
    }

    /// The state of the kernel of session `session_id`.
    pub async fn kernel_status_of(&self, session_id: &str) -> Result<KernelState> {
        let what = "asking for the kernel's state";
        let deadline = self.request_deadline();
        let response = self
            .get("/api/kernel/status", Some(session_id), what, deadline)
            .await?;
        let reply: StatusReply = self.json_reply(response, what, deadline).await?;
        Ok(match reply.state.as_str() {
            "idle" => KernelState::Idle,
            "running" => KernelState::Running,
            "stopped" => KernelState::Stopped,
            _ => KernelState::Other(reply.state),
        })
    }

    /// Sends SIGINT to the kernel serving `notebook`, for runs this client did not start (a
    /// browser's). To stop an `execute`, drop it instead: closing its request stops the code, and a
    /// SIGINT that arrives once the kernel is idle ends the kernel process itself.
    pub async fn interrupt(&self, notebook: &Path) -> Result<()> {
        let id = self.require_session(notebook).await?;
        let deadline = self.request_deadline();
        self.post_json(
            "/api/kernel/interrupt",
            &json!({}),
            Some(&id),
            "interrupting the kernel",
            deadline,
        )
        .await
        .map(drop)
    }

    /// Closes session `session_id`; its kernel process exits.
    pub async fn shutdown_session(&self, session_id: &str) -> Result<()> {
        let deadline = self.request_deadline();
        self.post_json(
            "/api/home/shutdown_session",
            &json!({ "sessionId": session_id }),
            None,
            "closing a kernel session",
            deadline,
        )
        .await
        .map(drop)
    }

    /// The session id for `notebook`, or an error saying none is open.
    async fn require_session(&self, notebook: &Path) -> Result<String> {
        self.resolve_session(notebook)
            .await?
            .ok_or_else(|| Error::SessionOpenFailed {
                path: notebook.to_owned(),
                reason: "no kernel session is open for it; run code in it first".to_owned(),
            })
    }
}

/// The error for an event stream past one of its limits.
pub(super) fn too_large(what: &str, limit: SseLimit) -> Error {
    let limit = match limit {
        SseLimit::Line(n) | SseLimit::Total(n) => n,
    };
    Error::ReplyTooLarge {
        what: what.to_owned(),
        limit,
    }
}
