//! Does a Docker engine answer, which version is it, is an image there? Plain `GET`s over the
//! engine's Unix socket or named pipe, nothing more. The engine is found the way the daemon
//! finds it (`hailer_platform::docker_endpoint`).
//!
//! The client does not link a Docker library; this only tells `init` and `doctor` whether the
//! default runtime can work here right now.

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use hailer_platform::docker_endpoint::{self, Transport};
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;

const PING_TIMEOUT: Duration = Duration::from_secs(2);

/// What the probe found.
#[derive(Debug, PartialEq, Eq)]
pub enum DockerProbe {
    Answers,
    /// The engine's socket exists but nothing answered; the reason is attached.
    NotAnswering(String),
    /// The engine is not local (DOCKER_HOST names TCP or SSH): not probed.
    Remote(String),
    NoSocket(EngineSocket),
}

/// A local engine's address: a Unix socket or a Windows named pipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineSocket {
    Unix(PathBuf),
    Pipe(String),
}

impl EngineSocket {
    /// Whether the socket or pipe is there (an engine that is not running has none).
    pub fn exists(&self) -> bool {
        match self {
            Self::Unix(path) => path.exists(),
            Self::Pipe(name) => std::path::Path::new(name).exists(),
        }
    }

    /// The path or pipe name, for messages.
    pub fn display(&self) -> String {
        match self {
            Self::Unix(path) => path.display().to_string(),
            Self::Pipe(name) => name.clone(),
        }
    }
}

/// The local engine's socket: `DOCKER_HOST`, the docker context, or the system's usual place;
/// `Err` with the address when that is a remote engine (or a context that cannot be read).
pub fn socket() -> Result<EngineSocket, String> {
    let endpoint = docker_endpoint::resolve_from_process().map_err(|error| error.to_string())?;
    match endpoint.transport() {
        Transport::Unix(path) => Ok(EngineSocket::Unix(path)),
        Transport::NamedPipe(name) => Ok(EngineSocket::Pipe(name)),
        Transport::Tcp(_) | Transport::Unsupported => Err(endpoint.host),
    }
}

/// Pings the local engine (see [`socket`]).
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
pub async fn engine_version(socket: &EngineSocket) -> Option<(String, String)> {
    match get(socket, "/version").await {
        Ok((200, body)) => serde_json::from_slice::<EngineVersion>(&body)
            .ok()
            .map(|version| (version.version, version.os)),
        _ => None,
    }
}

/// What the labels of a kernel image say about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageLabels {
    /// The kernel contract; empty when the image has no such label.
    pub contract: String,
    /// The base image it was built from, and that image's digest, when recorded.
    pub base: Option<String>,
    pub base_digest: Option<String>,
}

impl ImageLabels {
    /// `built from python:3.13-slim (sha256:0123456789ab)`, or nothing when not recorded.
    pub fn describe_base(&self) -> Option<String> {
        let base = self.base.as_deref()?;
        Some(match self.base_digest.as_deref() {
            Some(digest) => format!("built from {base} ({})", short_digest(digest)),
            None => format!("built from {base}"),
        })
    }
}

/// `sha256:` and the first 12 hex digits of a digest.
fn short_digest(digest: &str) -> String {
    match digest.split_once(':') {
        Some((algorithm, hex)) => format!("{algorithm}:{}", hex.get(..12).unwrap_or(hex)),
        None => digest.get(..12).unwrap_or(digest).to_owned(),
    }
}

/// The contract label of `image`: `Ok(None)` when the engine does not have it, `Some("")` when
/// it has no such label.
pub async fn image_contract(socket: &EngineSocket, image: &str) -> anyhow::Result<Option<String>> {
    Ok(image_labels(socket, image)
        .await?
        .map(|labels| labels.contract))
}

/// The labels of `image` that Hailer sets: `Ok(None)` when the engine does not have it.
pub async fn image_labels(
    socket: &EngineSocket,
    image: &str,
) -> anyhow::Result<Option<ImageLabels>> {
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
        (200, body) => {
            let labels = serde_json::from_slice::<Image>(&body)
                .ok()
                .and_then(|image| image.config)
                .and_then(|config| config.labels)
                .unwrap_or_default();
            let label = |name: &str| {
                labels
                    .get(name)
                    .filter(|value| !value.is_empty() && value.as_str() != "unknown")
                    .cloned()
            };
            Ok(Some(ImageLabels {
                contract: label(hailer_kernel_bundle::CONTRACT_LABEL).unwrap_or_default(),
                base: label(hailer_kernel_bundle::BASE_IMAGE_LABEL),
                base_digest: label(hailer_kernel_bundle::BASE_DIGEST_LABEL),
            }))
        }
        (404, _) => Ok(None),
        (status, _) => anyhow::bail!("the engine answered {status}"),
    }
}

/// One line on the kernel image `image` for `hailer status`: its contract and base image, or
/// why it cannot be used and the command that fixes that.
pub async fn describe_image(image: &str) -> String {
    let Ok(socket) = socket() else {
        return format!("{image} (a remote engine: not checked)");
    };
    let contract = hailer_kernel_bundle::contract();
    match image_labels(&socket, image).await {
        Ok(Some(labels)) if labels.contract == contract => match labels.describe_base() {
            Some(base) => format!("{image} ({base})"),
            None => format!("{image} (kernel contract {contract})"),
        },
        Ok(Some(labels)) => format!(
            "{image} is for another kernel contract ('{}'); run `hailer kernel pull`, or \
             `hailer kernel build`",
            labels.contract
        ),
        Ok(None) => format!(
            "{image} is not on this machine; run `hailer kernel pull`, or `hailer kernel build`"
        ),
        Err(_) => format!("{image} (Docker does not answer: not checked)"),
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
            "Download the right one (`hailer kernel pull`) or build it here (`hailer kernel build`), or set HAILER_KERNEL_IMAGE to an image of this contract.",
        ),
        Ok(None) => not_ready(
            format!("Docker {version} runs, but the kernel image {image} is not on this machine"),
            "Download it (`hailer kernel pull`), or build it here (`hailer kernel build`).",
        ),
        Err(error) => not_ready(
            format!("the kernel image {image} could not be checked: {error:#}"),
            "Check that Docker works (`docker info`).",
        ),
    }
}

/// `GET path` on the engine: its status and body.
pub async fn get(socket: &EngineSocket, path: &str) -> anyhow::Result<(u16, Bytes)> {
    tokio::time::timeout(PING_TIMEOUT, exchange(socket, path))
        .await
        .map_err(|_| anyhow::anyhow!("no answer within {} s", PING_TIMEOUT.as_secs()))?
}

async fn exchange(socket: &EngineSocket, path: &str) -> anyhow::Result<(u16, Bytes)> {
    match socket {
        #[cfg(unix)]
        EngineSocket::Unix(file) => {
            exchange_over(tokio::net::UnixStream::connect(file).await?, path).await
        }
        #[cfg(windows)]
        EngineSocket::Pipe(name) => {
            let pipe = tokio::net::windows::named_pipe::ClientOptions::new().open(name)?;
            exchange_over(pipe, path).await
        }
        #[allow(unreachable_patterns)]
        other => anyhow::bail!("{} cannot be reached on this system", other.display()),
    }
}

async fn exchange_over<S>(stream: S, path: &str) -> anyhow::Result<(u16, Bytes)>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static,
{
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
