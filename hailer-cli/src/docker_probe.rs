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

/// Whether the docker runtime can start a kernel here now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelReadiness {
    /// The engine answers, runs Linux containers, and has the image of this contract.
    Ready { version: String },
    /// What is missing, and what to do about it.
    NotReady { reason: String, fix: String },
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct EngineVersion {
    version: String,
    #[serde(default)]
    os: String,
}

/// The engine's version and operating system, when it answers.
pub async fn engine_version(socket: &Path) -> Option<(String, String)> {
    match get(socket, "/version").await {
        Ok((200, body)) => serde_json::from_slice::<EngineVersion>(&body)
            .ok()
            .map(|version| (version.version, version.os)),
        _ => None,
    }
}

/// The contract label of `image`: `Ok(None)` when the engine does not have it, `Some("")` when
/// it has no such label.
pub async fn image_contract(socket: &Path, image: &str) -> anyhow::Result<Option<String>> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Image {
        #[serde(default)]
        config: Option<ImageConfig>,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct ImageConfig {
        #[serde(default)]
        labels: Option<std::collections::BTreeMap<String, String>>,
    }
    match get(socket, &format!("/images/{image}/json")).await? {
        (200, body) => Ok(Some(
            serde_json::from_slice::<Image>(&body)
                .ok()
                .and_then(|image| image.config)
                .and_then(|config| config.labels)
                .and_then(|labels| labels.get(hailer_kernel_bundle::CONTRACT_LABEL).cloned())
                .unwrap_or_default(),
        )),
        (404, _) => Ok(None),
        (status, _) => anyhow::bail!("the engine answered {status}"),
    }
}

/// Whether a docker kernel of `image` (this build's contract) can start now.
pub async fn kernel_readiness(image: &str) -> KernelReadiness {
    let not_ready = |reason: String, fix: &str| KernelReadiness::NotReady {
        reason,
        fix: fix.to_owned(),
    };
    let socket = match socket() {
        Ok(socket) => socket,
        Err(host) => {
            return not_ready(
                format!("DOCKER_HOST names a remote engine ({host}), which is not checked"),
                "Point DOCKER_HOST at this machine's engine (or unset it).",
            );
        }
    };
    let Some((version, os)) = engine_version(&socket).await else {
        let reason = if socket.exists() {
            format!("no Docker engine answers at {}", socket.display())
        } else {
            format!(
                "Docker is not running here (no socket at {})",
                socket.display()
            )
        };
        return not_ready(
            reason,
            "Install Docker Engine or Docker Desktop and start it.",
        );
    };
    if os != "linux" {
        return not_ready(
            format!("Docker {version} runs {os} containers"),
            "Switch the engine to Linux containers.",
        );
    }
    let contract = hailer_kernel_bundle::contract();
    match image_contract(&socket, image).await {
        Ok(Some(found)) if found == contract => KernelReadiness::Ready { version },
        Ok(Some(found)) => not_ready(
            format!(
                "the image {image} is for kernel contract '{found}', and this Hailer needs {contract}"
            ),
            "Build the right one (`hailer kernel build`), or set HAILER_KERNEL_IMAGE to an image of this contract.",
        ),
        Ok(None) => not_ready(
            format!("Docker {version} runs, but the kernel image {image} is not on this machine"),
            "Build it (`hailer kernel build`) or download it (`hailer kernel pull`).",
        ),
        Err(error) => not_ready(
            format!("the kernel image {image} could not be checked: {error:#}"),
            "Check that Docker works (`docker info`).",
        ),
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
