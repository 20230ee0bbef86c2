//! Does a Docker engine answer? A `GET /_ping` over the engine's Unix socket, nothing more.
//!
//! The client does not link a Docker library; this only tells `init` whether the default
//! runtime can work here right now.

use std::path::PathBuf;
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

/// Pings the engine named by `DOCKER_HOST`, or the default socket.
pub async fn probe() -> DockerProbe {
    let socket = match std::env::var("DOCKER_HOST") {
        Ok(host) if !host.is_empty() => match host.strip_prefix("unix://") {
            Some(path) => PathBuf::from(path),
            None => return DockerProbe::Remote(host),
        },
        _ => PathBuf::from("/var/run/docker.sock"),
    };
    if !socket.exists() {
        return DockerProbe::NoSocket(socket);
    }
    match tokio::time::timeout(PING_TIMEOUT, ping(&socket)).await {
        Ok(Ok(())) => DockerProbe::Answers,
        Ok(Err(error)) => DockerProbe::NotAnswering(format!("{error:#}")),
        Err(_) => DockerProbe::NotAnswering("no answer within 2 s".to_owned()),
    }
}

async fn ping(socket: &std::path::Path) -> anyhow::Result<()> {
    let stream = UnixStream::connect(socket).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    let driver = tokio::spawn(connection);
    let request = Request::get("/_ping")
        .header(hyper::header::HOST, "docker")
        .body(Empty::<Bytes>::new())?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let _ = response.into_body().collect().await;
    driver.abort();
    anyhow::ensure!(status.is_success(), "the engine answered {status}");
    Ok(())
}
