//! `POST /v1/docker/status`: what the daemon finds of the Docker engine and of a kernel image,
//! for `hailer init`, `doctor`, `demo` and `status` (the client does not talk to the engine).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which kernel image to look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DockerStatusParams {
    /// The kernel image's name, as the workspace configures it.
    pub image: String,
}

/// The engine the daemon's environment points at, and the image asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DockerStatus {
    /// Where the daemon looks for the engine (`unix:///var/run/docker.sock`, a named pipe, a TCP
    /// address), and the docker context it came from, if any.
    pub endpoint: String,
    /// Whether the engine answers and can run the kernel.
    pub engine: DockerEngine,
    /// The image, when the engine answers and runs Linux containers.
    #[serde(default)]
    pub image: Option<KernelImageStatus>,
}

/// Whether the engine can run the kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum DockerEngine {
    /// It answers and runs Linux containers.
    Ready {
        /// The engine's version, as it reports it (`29.1`).
        version: String,
    },
    /// It answers but runs other containers (Windows containers, say).
    NotLinux {
        /// The operating system of the engine's containers, as it reports it (`windows`).
        os: String,
    },
    /// No engine is installed at the endpoint (no socket or pipe there).
    NotInstalled {
        /// For a person: the endpoint where nothing was found, and how to install Docker.
        message: String,
    },
    /// The engine's socket is there, but this user may not open it.
    NoAccess {
        /// For a person: the socket, and how to get the right to use it.
        message: String,
    },
    /// The engine did not answer, or the endpoint cannot be used.
    NotRunning {
        /// For a person: why the engine could not be reached or the endpoint used.
        message: String,
    },
}

/// What the engine has of a kernel image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum KernelImageStatus {
    /// The engine has it; its labels say which contract and base image.
    Present {
        /// The kernel contract label; empty when the image has none.
        contract: String,
        /// The base image it was built from (`python:3.13-slim`), from its label; absent when
        /// the label is missing, empty or `unknown`.
        #[serde(default)]
        base: Option<String>,
        /// The base image's digest (`sha256:<hex>`) from its label, under the same rules as
        /// `base`.
        #[serde(default, rename = "baseDigest")]
        base_digest: Option<String>,
    },
    /// The engine does not have it.
    Missing,
    /// The engine could not say.
    Unknown {
        /// The engine's error, for a person.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_wire_shape() {
        let status = DockerStatus {
            endpoint: "unix:///var/run/docker.sock".to_owned(),
            engine: DockerEngine::Ready {
                version: "29.1".to_owned(),
            },
            image: Some(KernelImageStatus::Present {
                contract: "c".to_owned(),
                base: None,
                base_digest: Some("sha256:00".to_owned()),
            }),
        };
        let json = serde_json::to_value(&status).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "endpoint": "unix:///var/run/docker.sock",
                "engine": {"state": "ready", "version": "29.1"},
                "image": {"state": "present", "contract": "c", "base": null, "baseDigest": "sha256:00"}
            })
        );
        assert_eq!(
            serde_json::from_value::<DockerStatus>(json).unwrap(),
            status
        );
    }
}
