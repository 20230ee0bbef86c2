//! Can the docker runtime work here, as the daemon finds it? The client does not talk to the
//! Docker engine: it asks hailerd (`POST /v1/docker/status`), which looks where its sessions look
//! (its `DOCKER_HOST`, its docker context, the system's usual socket), so `init`, `doctor`,
//! `demo` and `status` say what a session would find.

use std::time::Duration;

use anyhow::Context as _;
use hailer_config::HailerHome;
use hailer_protocol::{DockerEngine, DockerStatus, DockerStatusParams, KernelImageStatus};

use crate::daemon_client;
use crate::http::Endpoint;

/// How long the daemon may take to ask the engine (its own first contact waits up to 20 s).
const STATUS_TIMEOUT: Duration = Duration::from_secs(30);

/// What the daemon finds of the engine and of `image`, starting the daemon if need be.
pub(crate) async fn status(home: &HailerHome, image: &str) -> anyhow::Result<DockerStatus> {
    let connected = daemon_client::find_or_start(home).await?;
    status_from(&connected.endpoint, image).await
}

/// What the daemon at `endpoint` finds of the engine and of `image`.
pub(crate) async fn status_from(endpoint: &Endpoint, image: &str) -> anyhow::Result<DockerStatus> {
    let params = DockerStatusParams {
        image: image.to_owned(),
    };
    endpoint
        .post("/v1/docker/status", &params, STATUS_TIMEOUT)
        .await?
        .json()
        .context("hailerd could not say whether Docker works")
}

/// What to do once the user may open the engine's socket: hailerd still runs with the groups it
/// started with.
pub(crate) const RESTART_AFTER_GROUP: &str = "Once you may use Docker, run `hailer daemon stop` \
     so that hailerd starts again with your new groups.";

/// Whether the docker runtime can start a kernel here now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KernelReadiness {
    /// The engine answers, runs Linux containers, and has the image of this contract.
    Ready { version: String },
    /// What is missing, and what to do about it.
    NotReady { reason: String, fix: String },
}

/// Whether a docker kernel of `image` (this build's contract) can start now, by `status`.
pub(crate) fn kernel_readiness(status: &DockerStatus, image: &str) -> KernelReadiness {
    let not_ready = |reason: String, fix: &str| KernelReadiness::NotReady {
        reason,
        fix: fix.to_owned(),
    };
    let version = match &status.engine {
        DockerEngine::Ready { version } => version.clone(),
        DockerEngine::NotLinux { os } => {
            return not_ready(
                format!("Docker runs {os} containers"),
                "Switch the engine to Linux containers.",
            );
        }
        DockerEngine::NoAccess { message } => {
            return not_ready(
                message.trim_end_matches('.').to_owned(),
                RESTART_AFTER_GROUP,
            );
        }
        DockerEngine::NotInstalled { message } | DockerEngine::NotRunning { message } => {
            return not_ready(
                message.trim_end_matches('.').to_owned(),
                "Install Docker Engine or Docker Desktop and start it.",
            );
        }
    };
    let contract = hailer_kernel_bundle::contract();
    match &status.image {
        Some(KernelImageStatus::Present {
            contract: found, ..
        }) if *found == contract => KernelReadiness::Ready { version },
        Some(KernelImageStatus::Present {
            contract: found, ..
        }) => not_ready(
            format!(
                "the image {image} is for kernel contract '{found}', and this Hailer needs {contract}"
            ),
            "Download the right one (`hailer kernel pull`) or build it here (`hailer kernel build`), or set HAILER_KERNEL_IMAGE to an image of this contract.",
        ),
        Some(KernelImageStatus::Missing) | None => not_ready(
            format!("Docker {version} runs, but the kernel image {image} is not on this machine"),
            "Download it (`hailer kernel pull`), or build it here (`hailer kernel build`).",
        ),
        Some(KernelImageStatus::Unknown { message }) => not_ready(
            format!("the kernel image {image} could not be checked: {message}"),
            "Check that Docker works (`docker info`).",
        ),
    }
}

/// `built from python:3.13-slim (sha256:0123456789ab)`, or nothing when not recorded.
pub(crate) fn describe_base(image: &KernelImageStatus) -> Option<String> {
    let KernelImageStatus::Present {
        base: Some(base),
        base_digest,
        ..
    } = image
    else {
        return None;
    };
    Some(match base_digest.as_deref() {
        Some(digest) => format!("built from {base} ({})", short_digest(digest)),
        None => format!("built from {base}"),
    })
}

/// `sha256:` and the first 12 hex digits of a digest.
fn short_digest(digest: &str) -> String {
    match digest.split_once(':') {
        Some((algorithm, hex)) => format!("{algorithm}:{}", hex.get(..12).unwrap_or(hex)),
        None => digest.get(..12).unwrap_or(digest).to_owned(),
    }
}

/// One line on the kernel image `image` for `hailer status`, from what hailerd found of the
/// engine and the image: its contract and base image, or why it cannot be used and the command
/// that fixes that.
pub(crate) fn describe_image(status: &DockerStatus, image: &str) -> String {
    let contract = hailer_kernel_bundle::contract();
    match &status.image {
        Some(
            present @ KernelImageStatus::Present {
                contract: found, ..
            },
        ) if *found == contract => match describe_base(present) {
            Some(base) => format!("{image} ({base})"),
            None => format!("{image} (kernel contract {contract})"),
        },
        Some(KernelImageStatus::Present {
            contract: found, ..
        }) => format!(
            "{image} is for another kernel contract ('{found}'); run `hailer kernel pull`, or \
             `hailer kernel build`"
        ),
        Some(KernelImageStatus::Missing) => format!(
            "{image} is not on this machine; run `hailer kernel pull`, or `hailer kernel build`"
        ),
        Some(KernelImageStatus::Unknown { .. }) | None => {
            format!("{image} (Docker does not answer: not checked)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(image: Option<KernelImageStatus>) -> DockerStatus {
        DockerStatus {
            endpoint: "unix:///var/run/docker.sock".to_owned(),
            engine: DockerEngine::Ready {
                version: "29.1".to_owned(),
            },
            image,
        }
    }

    #[test]
    fn the_base_image_is_described_with_a_short_digest() {
        let present = |base_digest| KernelImageStatus::Present {
            contract: "c".to_owned(),
            base: Some("python:3.13-slim".to_owned()),
            base_digest,
        };
        assert_eq!(
            describe_base(&present(Some(format!("sha256:{}", "ab".repeat(32))))).as_deref(),
            Some("built from python:3.13-slim (sha256:abababababab)")
        );
        assert_eq!(
            describe_base(&present(None)).as_deref(),
            Some("built from python:3.13-slim")
        );
        assert_eq!(describe_base(&KernelImageStatus::Missing), None);
    }

    #[test]
    fn readiness_needs_a_linux_engine_and_the_image_of_this_contract() {
        let contract = hailer_kernel_bundle::contract();
        let present = |contract: &str| KernelImageStatus::Present {
            contract: contract.to_owned(),
            base: None,
            base_digest: None,
        };
        assert_eq!(
            kernel_readiness(&ready(Some(present(&contract))), "img"),
            KernelReadiness::Ready {
                version: "29.1".to_owned()
            }
        );
        let reason = |status: &DockerStatus| match kernel_readiness(status, "img") {
            KernelReadiness::NotReady { reason, .. } => reason,
            KernelReadiness::Ready { .. } => String::new(),
        };
        assert!(reason(&ready(Some(present("other")))).contains("kernel contract 'other'"));
        assert!(reason(&ready(Some(KernelImageStatus::Missing))).contains("not on this machine"));
        let down = DockerStatus {
            engine: DockerEngine::NotRunning {
                message: "Docker is not running: the engine at unix:///x did not answer."
                    .to_owned(),
            },
            image: None,
            ..ready(None)
        };
        assert_eq!(
            reason(&down),
            "Docker is not running: the engine at unix:///x did not answer"
        );
        let windows = DockerStatus {
            engine: DockerEngine::NotLinux {
                os: "windows".to_owned(),
            },
            ..ready(None)
        };
        assert_eq!(reason(&windows), "Docker runs windows containers");
    }
}
