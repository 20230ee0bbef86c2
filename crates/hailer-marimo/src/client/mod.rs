//! An async client for one marimo server: sessions without a browser, execute, cells, files.

mod cells;
mod console_text;
mod execute;
mod files;
mod html_error;
mod http;
mod notebook_state;
mod server_token;
mod sessions;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, Response};
use secrecy::SecretString;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use cells::CellChange;
pub use execute::{ExecChunk, ExecOutcome, ExecOutput, StreamKind};
pub use sessions::{KernelState, SessionHandle};

use crate::error::{Error, Result};
use http::{Deadline, Http, SERVER_TOKEN_HEADER, SESSION_HEADER, read_capped, status_error};
use notebook_state::NotebookStates;

/// 16 MiB: the most any reply (and any single line of an event stream) may hold.
pub(crate) const MAX_REPLY_BYTES: usize = 16 * 1024 * 1024;

/// Time limits and caps of a [`MarimoClient`].
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Each ordinary request (sessions, status, files, instantiate).
    pub request_timeout: Duration,
    /// Opening a kernel session (the kernel process has to start).
    pub open_timeout: Duration,
    /// How often a running execute checks whether the kernel is still alive.
    pub status_poll: Duration,
    /// The cap on a whole reply and on one event-stream line.
    pub max_reply_bytes: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            request_timeout: Duration::from_secs(10),
            open_timeout: Duration::from_secs(60),
            status_poll: Duration::from_millis(500),
            max_reply_bytes: MAX_REPLY_BYTES,
        }
    }
}

/// A request body that can be sent again (after refreshing the server token).
#[derive(Debug, Clone)]
struct PostBody {
    content_type: String,
    bytes: Bytes,
}

/// A client for one marimo server (base URL + access token). Cheap to clone.
#[derive(Debug, Clone)]
pub struct MarimoClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    http: Http,
    options: ClientOptions,
    server_token: server_token::ServerTokenCache,
    notebooks: NotebookStates,
}

impl MarimoClient {
    /// A client for the server at `base_url` (e.g. `http://127.0.0.1:2718`).
    pub fn new(base_url: &str, token: SecretString) -> Result<Self> {
        Self::with_options(base_url, token, ClientOptions::default())
    }

    /// A client with explicit limits.
    pub fn with_options(
        base_url: &str,
        token: SecretString,
        options: ClientOptions,
    ) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner {
                http: Http::new(base_url, token)?,
                options,
                server_token: server_token::ServerTokenCache::default(),
                notebooks: NotebookStates::default(),
            }),
        })
    }

    /// The server's base URL.
    pub fn base_url(&self) -> &str {
        self.inner.http.base().as_str()
    }

    fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    fn request_deadline(&self) -> Deadline {
        Deadline::after(self.options().request_timeout)
    }

    /// A GET that must succeed; the reply's body is left unread.
    async fn get(
        &self,
        path: &str,
        session_id: Option<&str>,
        what: &str,
        deadline: Deadline,
    ) -> Result<Response> {
        let http = &self.inner.http;
        let mut request = http.request(Method::GET, http.url(path));
        if let Some(id) = session_id {
            request = request.header(SESSION_HEADER, id);
        }
        let response = http.send(request, what, deadline).await?;
        if response.status().is_success() {
            Ok(response)
        } else {
            Err(status_error(response, self.options().max_reply_bytes, what, deadline).await)
        }
    }

    /// A JSON POST with the server token (see [`Self::post`]).
    async fn post_json<B: Serialize + ?Sized>(
        &self,
        path: &str,
        body: &B,
        session_id: Option<&str>,
        what: &str,
        deadline: Deadline,
    ) -> Result<Response> {
        let json = serde_json::to_vec(body).map_err(|e| {
            Error::InvalidInput(format!("the request for {what} could not be encoded: {e}"))
        })?;
        let body = PostBody {
            content_type: "application/json".to_owned(),
            bytes: Bytes::from(json),
        };
        self.post(path, &body, session_id, what, deadline).await
    }

    /// A POST with the server token (refetched once if marimo says it is missing or stale).
    async fn post(
        &self,
        path: &str,
        body: &PostBody,
        session_id: Option<&str>,
        what: &str,
        deadline: Deadline,
    ) -> Result<Response> {
        let http = &self.inner.http;
        let mut refreshed = false;
        loop {
            let server_token = self.server_token(deadline, refreshed).await?;
            let mut request = http
                .request(Method::POST, http.url(path))
                .header(SERVER_TOKEN_HEADER, server_token)
                .header(CONTENT_TYPE, &body.content_type)
                .body(body.bytes.clone());
            if let Some(id) = session_id {
                request = request.header(SESSION_HEADER, id);
            }
            let response = http.send(request, what, deadline).await?;
            if response.status().is_success() {
                return Ok(response);
            }
            let error =
                status_error(response, self.options().max_reply_bytes, what, deadline).await;
            if !refreshed && server_token::is_server_token_refusal(&error) {
                refreshed = true;
                continue;
            }
            return Err(error);
        }
    }

    /// Reads a JSON reply into `T`.
    async fn json_reply<T: DeserializeOwned>(
        &self,
        response: Response,
        what: &str,
        deadline: Deadline,
    ) -> Result<T> {
        let body = read_capped(response, self.options().max_reply_bytes, what, deadline).await?;
        serde_json::from_slice(&body).map_err(|e| Error::BadReply {
            what: what.to_owned(),
            detail: format!(
                "{e} in {}",
                http::truncate_chars(&String::from_utf8_lossy(&body), 200)
            ),
        })
    }
}
