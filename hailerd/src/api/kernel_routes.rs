//! `/v1/kernel/...`: kernel work that belongs to no session.

use std::path::PathBuf;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use hailer_protocol::{ErrorCode, InstallLocalParams, InstallLocalResponse};

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::state::Daemon;

/// Prepares the unsafe-local kernel's managed Python environment (marimo and the kernel's
/// packages), or confirms it is ready.
#[utoipa::path(
    post, path = "/v1/kernel/install-local", tag = "kernel",
    request_body = InstallLocalParams,
    responses(
        (status = 200, body = InstallLocalResponse),
        (status = 502, description = "Python or pip failed", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn install_local(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<InstallLocalParams>,
) -> Result<Json<InstallLocalResponse>, ApiError> {
    let python = params.python.as_ref().map(PathBuf::from);
    let wheelhouse = params.wheelhouse.as_ref().map(PathBuf::from);
    let progress = |line: &str| tracing::info!(line, "kernel environment");
    let venv = crate::kernel::managed_venv(
        python.as_deref(),
        params.path.as_deref(),
        wheelhouse.as_deref(),
        &daemon.config.data_dir,
        &progress,
    )
    .await
    .map_err(|error| ApiError::Session {
        status: StatusCode::BAD_GATEWAY,
        code: ErrorCode::KernelUnavailable,
        message: error.to_string(),
        hint: error.hint(),
    })?;
    Ok(Json(InstallLocalResponse {
        venv: venv.dir.display().to_string(),
        contract: hailer_kernel_bundle::contract(),
        reused: venv.reused,
    }))
}
