//! `/v1/docker/status`: what the daemon finds of the Docker engine and of a kernel image. The
//! client asks here instead of talking to the engine itself, so `init`, `doctor`, `demo` and
//! `status` judge the engine the daemon's sessions use (its `DOCKER_HOST`, its docker context).

use axum::Json;
use hailer_docker::Engine;
use hailer_docker::engine::{Endpoint, EndpointSource};
use hailer_protocol::{DockerEngine, DockerStatus, DockerStatusParams, KernelImageStatus};

use super::json_body::JsonBody;

/// Whether the Docker engine answers and runs Linux containers, and whether it has the kernel
/// image asked about (with its contract and base image labels).
#[utoipa::path(
    post, path = "/v1/docker/status", operation_id = "dockerStatus", tag = "kernel",
    request_body = DockerStatusParams,
    responses(
        (status = 200, body = DockerStatus),
        (status = 400, description = "Malformed request", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn status(JsonBody(params): JsonBody<DockerStatusParams>) -> Json<DockerStatus> {
    let endpoint = match hailer_docker::engine::endpoint::resolve_from_process() {
        Ok(endpoint) => endpoint,
        Err(error) => {
            return Json(DockerStatus {
                endpoint: String::new(),
                engine: DockerEngine::NotRunning {
                    message: error.without_runtime_alternative(),
                },
                image: None,
            });
        }
    };
    let described = describe(&endpoint);
    let engine = match Engine::connect_to(endpoint).await {
        Ok(engine) => engine,
        Err(error) => {
            let message = error.without_runtime_alternative();
            let engine = match error {
                hailer_docker::Error::NotLinux { os } => DockerEngine::NotLinux { os },
                hailer_docker::Error::NotInstalled { .. } => DockerEngine::NotInstalled { message },
                hailer_docker::Error::SocketDenied { .. } => DockerEngine::NoAccess { message },
                _ => DockerEngine::NotRunning { message },
            };
            return Json(DockerStatus {
                endpoint: described,
                engine,
                image: None,
            });
        }
    };
    let image = match hailer_docker::image::image_labels(&engine, &params.image).await {
        Ok(Some(labels)) => {
            let label = |name: &str| {
                labels
                    .get(name)
                    .filter(|value| !value.is_empty() && value.as_str() != "unknown")
                    .cloned()
            };
            KernelImageStatus::Present {
                contract: label(hailer_kernel_bundle::CONTRACT_LABEL).unwrap_or_default(),
                base: label(hailer_kernel_bundle::BASE_IMAGE_LABEL),
                base_digest: label(hailer_kernel_bundle::BASE_DIGEST_LABEL),
            }
        }
        Ok(None) => KernelImageStatus::Missing,
        Err(error) => KernelImageStatus::Unknown {
            message: error.without_runtime_alternative(),
        },
    };
    Json(DockerStatus {
        endpoint: described,
        engine: DockerEngine::Ready {
            version: engine.version().to_owned(),
        },
        image: Some(image),
    })
}

/// The endpoint for messages: its address, and the docker context it came from.
fn describe(endpoint: &Endpoint) -> String {
    match &endpoint.source {
        EndpointSource::Context(name) => format!("{} (docker context {name})", endpoint.host),
        _ => endpoint.host.clone(),
    }
}
