//! `/v1/kernel/...`: kernel work that belongs to no session.

use std::path::PathBuf;

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use hailer_protocol::{
    InstallLocalParams, KernelBuildParams, KernelJobLine, KernelPullParams, KernelStopParams,
    KernelStopResponse,
};

use super::error::ApiError;
use super::job_stream::job_response;
use super::json_body::JsonBody;
use crate::daemon_state::Daemon;
use hailer_marimo::Report;

/// Builds the docker kernel's image through the engine (or, with `exportTo`, writes its build
/// context and the equivalent `docker build` command), streaming progress as JSON lines.
/// Unless told otherwise it carries the client's pip and uv index settings into the build stage.
#[utoipa::path(
    post, path = "/v1/kernel/build", operation_id = "buildKernelImage", tag = "kernel",
    request_body = KernelBuildParams,
    responses(
        (status = 200, description = "Progress lines, then `done` or `failed`", content_type = "application/x-ndjson", body = hailer_protocol::KernelJobLine),
        (status = 400, description = "The body is not a build request", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn build(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<KernelBuildParams>,
) -> Response {
    tracing::info!(?params, "kernel build");
    let docker = daemon.docker.clone();
    job_response(&daemon, "kernel-build", move |progress| async move {
        let sink = move |report: Report<'_>| progress.report(report);
        let line = hailerd_kernel::build_image(params, &sink).await;
        // What was found of the images before no longer holds.
        docker.forget();
        line
    })
}

/// Downloads the docker kernel's image and checks its contract, streaming progress as JSON lines.
#[utoipa::path(
    post, path = "/v1/kernel/pull", operation_id = "pullKernelImage", tag = "kernel",
    request_body = KernelPullParams,
    responses(
        (status = 200, description = "Progress lines, then `done` or `failed`", content_type = "application/x-ndjson", body = hailer_protocol::KernelJobLine),
        (status = 400, description = "The body is not a pull request", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn pull(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<KernelPullParams>,
) -> Response {
    tracing::info!(image = %params.image, "kernel pull");
    let docker = daemon.docker.clone();
    job_response(&daemon, "kernel-pull", move |progress| async move {
        let sink = move |report: Report<'_>| progress.report(report);
        let line = hailerd_kernel::pull_image(params, &sink).await;
        // What was found of the images before no longer holds.
        docker.forget();
        line
    })
}

/// Ends this daemon's session of the workspace (its notebooks are copied back first), then
/// removes every container and network labelled with the workspace, whoever started them.
#[utoipa::path(
    post, path = "/v1/kernel/stop", operation_id = "stopWorkspaceKernels", tag = "kernel",
    request_body = KernelStopParams,
    responses(
        (status = 200, body = KernelStopResponse),
        (status = 400, description = "The workspace is not an absolute path", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn stop(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<KernelStopParams>,
) -> Result<Json<KernelStopResponse>, ApiError> {
    let workspace = PathBuf::from(&params.workspace);
    if !workspace.is_absolute() {
        return Err(ApiError::BadRequest(
            "workspace must be the workspace folder's absolute path".to_owned(),
        ));
    }
    Ok(Json(
        hailerd_session::stop_workspace(&daemon.sessions, &workspace).await,
    ))
}

/// Prepares the unsafe-local kernel's managed Python environment (marimo and the kernel's
/// packages), or confirms it is ready, streaming progress (pip's own lines among them) as JSON
/// lines.
#[utoipa::path(
    post, path = "/v1/kernel/install-local", operation_id = "installLocalEnvironment", tag = "kernel",
    request_body = InstallLocalParams,
    responses(
        (status = 200, description = "Progress lines, then `done` or `failed`", content_type = "application/x-ndjson", body = hailer_protocol::KernelJobLine),
        (status = 400, description = "The body is not an install request", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn install_local(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<InstallLocalParams>,
) -> Response {
    let kernel_envs = daemon.config.folders.kernel_envs.clone();
    job_response(&daemon, "install-local", move |progress| async move {
        let python = params.python.as_ref().map(PathBuf::from);
        let wheelhouse = params.wheelhouse.as_ref().map(PathBuf::from);
        let report = progress.clone();
        let sink = move |line: Report<'_>| report.report(line);
        let contract = hailer_kernel_bundle::contract();
        match hailerd_kernel::managed_venv(
            python.as_deref(),
            params.path.as_deref(),
            wheelhouse.as_deref(),
            &kernel_envs,
            &sink,
        )
        .await
        {
            Ok(venv) => {
                progress.line(&format!(
                    "{} the environment for kernel contract {contract}: {}",
                    if venv.reused { "Reused" } else { "Created" },
                    venv.dir.display()
                ));
                KernelJobLine::Done {
                    image: None,
                    contract,
                    command: None,
                    log: None,
                }
            }
            Err(error) => KernelJobLine::failed(error.to_string(), error.hint()),
        }
    })
}
