//! Does a Docker engine answer, which version is it, is an image there? Plain `GET`s over the
//! engine's Unix socket, nothing more.
//!
//! The client does not link a Docker library; this only tells `init` and `doctor` whether the
//! default runtime can work here right now.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// What the probe found.
#[derive(Debug, PartialEq, Eq)]
pub enum DockerProbe {
    Answers,
    /// The engine's socket exists but nothing answered; the reason is attached.
    NotAnswering(String),
    /// The engine is not local (DOCKER_HOST names TCP or SSH): not probed.
    Remote(String),
    NoSocket(PathBuf),
}

/// The engine's socket named by `DOCKER_HOST`, or the default one; `Err` with the value when
/// `DOCKER_HOST` names a remote engine.
pub fn socket() -> Result<PathBuf, String> {
    match std::env::var("DOCKER_HOST") {
        Ok(host) if !host.is_empty() => match host.strip_prefix("unix://") {
            Some(path) => Ok(PathBuf::from(path)),
            None => Err(host),
        },
        _ => Ok(PathBuf::from("/var/run/docker.sock")),
    }
}

/// Pings the engine named by `DOCKER_HOST`, or the default socket.
pub async fn probe() -> DockerProbe {
    let socket = match socket() {
        Ok(socket) => socket,
        Err(host) => return DockerProbe::Remote(host),
    };
    if !socket.exists() {
        return DockerProbe::NoSocket(socket);
    }
    match get(&socket, "/_ping").await {
        Ok((status, _)) if (200..300).contains(&status) => DockerProbe::Answers,
        Ok((status, _)) => DockerProbe::NotAnswering(format!("the engine answered {status}")),
        Err(error) => DockerProbe::NotAnswering(format!("{error:#}")),
    }
}

/// `GET path` on the engine: its status and body.
pub async fn get(socket: &Path, path: &str) -> anyhow::Result<(u16, Bytes)> {
    tokio::time::timeout(PING_TIMEOUT, exchange(socket, path))
        .await
        .map_err(|_| anyhow::anyhow!("no answer within {} s", PING_TIMEOUT.as_secs()))?
}

async fn exchange(socket: &Path, path: &str) -> anyhow::Result<(u16, Bytes)> {
    let stream = UnixStream::connect(socket).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    let driver = tokio::spawn(connection);
    let request = Request::get(path)
        .header(hyper::header::HOST, "docker")
        .body(Empty::<Bytes>::new())?;
    let response = sender.send_request(request).await?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    driver.abort();
    Ok((status, body))
}
