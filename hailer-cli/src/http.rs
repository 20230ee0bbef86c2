//! A small HTTP/1.1 client for talking to hailerd on loopback.
//!
//! The daemon is always on 127.0.0.1 without TLS, so this uses hyper's connection API directly:
//! no connection pool, no TLS set-up, nothing that slows a short command down.

use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;

/// Where the daemon listens and the token it wants.
#[derive(Clone)]
pub struct Endpoint {
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
pub struct Reply {
    pub status: u16,
    pub body: Bytes,
}

impl Reply {
    /// The body as `T` when the status is a success; otherwise the daemon's error message.
    pub fn json<T: DeserializeOwned>(self) -> anyhow::Result<T> {
        if !(200..300).contains(&self.status) {
            let said = match self.error_body() {
                Some(body) => match body.hint {
                    Some(hint) => format!("{}\n  {hint}", body.message),
                    None => body.message,
                },
                None => String::from_utf8_lossy(&self.body).into_owned(),
            };
            bail!("hailerd answered {}: {said}", self.status);
        }
        serde_json::from_slice(&self.body).context("hailerd sent a reply this client cannot read")
    }

    /// The daemon's error, when this reply is one.
    pub fn error_body(&self) -> Option<hailer_protocol::ErrorBody> {
        if (200..300).contains(&self.status) {
            return None;
        }
        serde_json::from_slice(&self.body).ok()
    }
}

impl Endpoint {
    pub async fn get(&self, path: &str, timeout: Duration) -> anyhow::Result<Reply> {
        self.send("GET", path, None, timeout).await
    }

    pub async fn post<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        timeout: Duration,
    ) -> anyhow::Result<Reply> {
        let body = serde_json::to_vec(body)?;
        self.send("POST", path, Some(body), timeout).await
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
        let (response, driver) = self.request(method, path, body, "application/json").await?;
        let status = response.status().as_u16();
        let body = response.into_body().collect().await?.to_bytes();
        driver.abort();
        Ok(Reply { status, body })
    }

    /// Posts `body` asking for a reply of one JSON document per line, and hands each line to
    /// `on_line` as it arrives. A reply that is not a stream (an error answered at once) is
    /// returned whole instead.
    pub async fn post_lines<B: Serialize>(
        &self,
        path: &str,
        body: &B,
        timeout: Duration,
        on_line: &mut dyn FnMut(&[u8]) -> anyhow::Result<()>,
    ) -> anyhow::Result<Option<Reply>> {
        let body = serde_json::to_vec(body)?;
        let lines = async {
            let (response, driver) = self
                .request("POST", path, Some(body), hailer_protocol::NDJSON)
                .await?;
            let status = response.status().as_u16();
            let streamed = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|value| value.starts_with(hailer_protocol::NDJSON));
            let mut body = response.into_body();
            if !streamed {
                let body = body.collect().await?.to_bytes();
                driver.abort();
                return Ok(Some(Reply { status, body }));
            }
            let mut pending = Vec::new();
            while let Some(frame) = body.frame().await {
                if let Ok(data) = frame?.into_data() {
                    pending.extend_from_slice(&data);
                    while let Some(end) = pending.iter().position(|&byte| byte == b'\n') {
                        let line: Vec<u8> = pending.drain(..=end).collect();
                        on_line(&line[..end])?;
                    }
                }
            }
            driver.abort();
            Ok(None)
        };
        tokio::time::timeout(timeout, lines)
            .await
            .with_context(|| format!("hailerd did not finish {path} within {timeout:?}"))?
    }

    async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<Vec<u8>>,
        accept: &str,
    ) -> anyhow::Result<(
        hyper::Response<hyper::body::Incoming>,
        tokio::task::JoinHandle<Result<(), hyper::Error>>,
    )> {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).await?;
        stream.set_nodelay(true)?;
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        let driver = tokio::spawn(connection);
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, format!("127.0.0.1:{}", self.port))
            .header(AUTHORIZATION, format!("Bearer {}", self.token))
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, accept)
            .body(Full::new(Bytes::from(body.unwrap_or_default())))?;
        let response = sender.send_request(request).await?;
        Ok((response, driver))
    }
}
