//! `/v1/docker/status`: what the daemon finds of the Docker engine and of a kernel image. The
//! client asks here instead of talking to the engine itself, so `init`, `doctor`, `demo` and
//! `status` judge the engine the daemon's sessions use (its `DOCKER_HOST`, its docker context).

use axum::Json;
use axum::extract::State;
use hailer_protocol::{DockerStatus, DockerStatusParams};

use super::json_body::JsonBody;
use crate::daemon_state::Daemon;

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
pub(super) async fn status(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<DockerStatusParams>,
) -> Json<DockerStatus> {
    let asked = std::time::Instant::now();
    let status = crate::docker_status::probe(&params.image).await;
    daemon.docker.store(&params.image, status.clone(), asked);
    Json(status)
}
