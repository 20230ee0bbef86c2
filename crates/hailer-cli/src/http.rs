//! A small HTTP/1.1 client for talking to hailerd on loopback.
//!
//! The daemon is always on 127.0.0.1 without TLS, so this uses hyper's connection API directly:
//! no connection pool, no TLS set-up, nothing that slows a short command down.

use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;

/// Where the daemon listens and the token it wants.
#[derive(Clone)]
pub(crate) struct Endpoint {
    pub port: u16,
    pub token: String,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// A reply: its status and body.
#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub body: Bytes,
}

impl Reply {
    /// The body as `T` when the status is a success; otherwise the daemon's error message.
    pub(crate) fn json<T: DeserializeOwned>(self) -> anyhow::Result<T> {
        if !(200..300).contains(&self.status) {
            match self.error_body() {
                Some(body) => bail!("{}", body.said()),
                None => bail!(
                    "hailerd answered {}: {}",
                    self.status,
                    String::from_utf8_lossy(&self.body)
                ),
            }
        }
        serde_json::from_slice(&self.body).context("hailerd sent a reply this client cannot read")
    }

    /// The daemon's error, when this reply is one.
    pub(crate) fn error_body(&self) -> Option<hailer_protocol::ErrorBody> {
        if (200..300).contains(&self.status) {
            return None;
        }
        serde_json::from_slice(&self.body).ok()
    }
}

impl Endpoint {
    pub(crate) async fn get(&self, path: &str, timeout: Duration) -> anyhow::Result<Reply> {
        self.send("GET", path, None, timeout).await
    }

    pub(crate) async fn delete(&self, path: &str, timeout: Duration) -> anyhow::Result<Reply> {
        self.send("DELETE", path, None, timeout).await
    }

    pub(crate) async fn post<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        timeout: Duration,
    ) -> anyhow::Result<Reply> {
        let body = serde_json::to_vec(body)?;
        self.send("POST", path, Some(body), timeout).await
    }

    /// Posts a JSON-RPC message of the Model Context Protocol as it came (`body`), taking a
    /// JSON reply or an event stream, as the protocol's Streamable HTTP transport asks.
    pub(crate) async fn post_mcp(
        &self,
        path: &str,
        body: Vec<u8>,
        timeout: Duration,
    ) -> anyhow::Result<Reply> {
        let mut request = self.request("POST", path, Some(body))?;
        request.headers_mut().insert(
            hyper::header::ACCEPT,
            hyper::header::HeaderValue::from_static("application/json, text/event-stream"),
        );
        tokio::time::timeout(timeout, self.exchange_request(request))
            .await
            .with_context(|| format!("hailerd did not answer {path} within {timeout:?}"))?
    }

    /// Posts `body` and hands each line of a streamed reply to `on_line` as it arrives; a
    /// refusal is the daemon's error. There is no time limit: the caller's Ctrl+C ends it.
    pub(crate) async fn post_lines<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        on_line: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let body = serde_json::to_vec(body)?;
        let stream = TcpStream::connect(("127.0.0.1", self.port)).await?;
        stream.set_nodelay(true)?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        let driver = tokio::spawn(connection);
        let request = self.request("POST", path, Some(body))?;
        let response = sender.send_request(request).await?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        if !(200..300).contains(&status) {
            let body = body.collect().await?.to_bytes();
            driver.abort();
            return Reply { status, body }
                .json::<serde_json::Value>()
                .map(|_| ());
        }
        let mut pending: Vec<u8> = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.context("hailerd's reply broke off")?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            pending.extend_from_slice(&data);
            while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                on_line(&line[..end])?;
            }
        }
        if !pending.is_empty() {
            on_line(&pending)?;
        }
        driver.abort();
        Ok(())
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> anyhow::Result<Request<Full<Bytes>>> {
        Ok(Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, format!("127.0.0.1:{}", self.port))
            .header(AUTHORIZATION, format!("Bearer {}", self.token))
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.unwrap_or_default())))?)
    }

    async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        timeout: Duration,
    ) -> anyhow::Result<Reply> {
        tokio::time::timeout(timeout, self.exchange(method, path, body))
            .await
            .with_context(|| format!("hailerd did not answer {path} within {timeout:?}"))?
    }

    async fn exchange(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> anyhow::Result<Reply> {
        let request = self.request(method, path, body)?;
        self.exchange_request(request).await
    }

    /// One request on a connection of its own. Dropping this future closes the connection, so
    /// the daemon stops serving the request (how `hailer mcp` cancels a call).
    async fn exchange_request(&self, request: Request<Full<Bytes>>) -> anyhow::Result<Reply> {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).await?;
        stream.set_nodelay(true)?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        let _driver = AbortOnDrop(tokio::spawn(connection));
        let response = sender.send_request(request).await?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await?.to_bytes();
        Ok(Reply { status, body })
    }
}

/// Ends a spawned task (a connection's driver) when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod said_tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn reply(message: &str, hint: Option<&str>) -> Reply {
        let body = serde_json::json!({
            "code": "not_found",
            "message": message,
            "hint": hint,
        });
        Reply {
            status: 404,
            body: Bytes::from(body.to_string()),
        }
    }

    #[test]
    fn errors_read_as_hailer_speaking_with_each_hint_once() {
        let text = |reply: Reply| format!("{:#}", reply.json::<serde_json::Value>().unwrap_err());
        assert_eq!(
            text(reply(
                "no notebook matches \"x\"",
                Some("Run /notebook list.")
            )),
            "no notebook matches \"x\"\n  Run /notebook list."
        );
        assert_eq!(
            text(reply(
                "no such session. Run hailer status.",
                Some("Run hailer status.")
            )),
            "no such session. Run hailer status."
        );
        assert_eq!(text(reply("gone", None)), "gone");
        assert_eq!(text(reply("gone", Some("  "))), "gone");
        assert!(!text(reply("gone", Some("x"))).contains("hailerd answered"));
        let raw = Reply {
            status: 502,
            body: Bytes::from_static(b"<html>bad gateway</html>"),
        };
        assert_eq!(text(raw), "hailerd answered 502: <html>bad gateway</html>");
    }
}
