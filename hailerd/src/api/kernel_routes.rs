//! `/v1/kernel/...`: kernel work that belongs to no session.

use std::path::PathBuf;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hailer_protocol::{
    ErrorCode, InstallLocalParams, InstallLocalResponse, InstallLocalStep, NDJSON,
};
use tokio::sync::mpsc;

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::state::Daemon;
use hailer_marimo::ManagedVenv;

/// Prepares the unsafe-local kernel's managed Python environment (marimo and the kernel's
/// packages), or confirms it is ready.
///
/// With `Accept: application/x-ndjson` the reply streams one [`InstallLocalStep`] per line:
/// progress as it happens, then `ready` or `failed` (the status is 200 either way, since it is
/// sent before the work ends).
#[utoipa::path(
    post, path = "/v1/kernel/install-local", tag = "kernel",
    request_body = InstallLocalParams,
    responses(
        (status = 200, body = InstallLocalResponse),
        (status = 200, content_type = "application/x-ndjson", body = InstallLocalStep,
            description = "One step per line, when asked for with `Accept: application/x-ndjson`"),
        (status = 502, description = "Python or pip failed", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn install_local(
    State(daemon): State<Daemon>,
    headers: HeaderMap,
    JsonBody(params): JsonBody<InstallLocalParams>,
) -> Response {
    if wants_stream(&headers) {
        return streamed(daemon, params);
    }
    let progress = |line: &str| tracing::info!(line, "kernel environment");
    match prepare(&daemon, &params, &progress).await {
        Ok(venv) => Json(ready(venv)).into_response(),
        Err(error) => error.into_response(),
    }
}

/// Whether the client asked for the streamed reply.
fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.split(',').any(|kind| kind.trim().starts_with(NDJSON)))
}

/// Runs the install in its own task and streams its steps; a client that leaves does not stop
/// it (the environment is still worth finishing), it only stops hearing about it.
fn streamed(daemon: Daemon, params: InstallLocalParams) -> Response {
    let (sender, receiver) = mpsc::unbounded_channel::<InstallLocalStep>();
    tokio::spawn(async move {
        let lines = sender.clone();
        let progress = move |line: &str| {
            tracing::info!(line, "kernel environment");
            let _ = lines.send(InstallLocalStep::Progress {
                line: line.to_owned(),
            });
        };
        let last = match prepare(&daemon, &params, &progress).await {
            Ok(venv) => InstallLocalStep::Ready(ready(venv)),
            Err(error) => InstallLocalStep::Failed(error.body()),
        };
        let _ = sender.send(last);
    });
    let lines = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let step = receiver.recv().await?;
        let mut line = serde_json::to_vec(&step).unwrap_or_default();
        line.push(b'\n');
        Some((
            Ok::<_, std::convert::Infallible>(Bytes::from(line)),
            receiver,
        ))
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, NDJSON)],
        Body::from_stream(lines),
    )
        .into_response()
}

async fn prepare(
    daemon: &Daemon,
    params: &InstallLocalParams,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<ManagedVenv, ApiError> {
    let python = params.python.as_ref().map(PathBuf::from);
    let wheelhouse = params.wheelhouse.as_ref().map(PathBuf::from);
    crate::kernel::managed_venv(
        python.as_deref(),
        params.path.as_deref(),
        wheelhouse.as_deref(),
        &daemon.config.data_dir,
        progress,
    )
    .await
    .map_err(|error| ApiError::Session {
        status: StatusCode::BAD_GATEWAY,
        code: ErrorCode::KernelUnavailable,
        message: error.to_string(),
        hint: error.hint(),
    })
}

fn ready(venv: ManagedVenv) -> InstallLocalResponse {
    InstallLocalResponse {
        venv: venv.dir.display().to_string(),
        contract: hailer_kernel_bundle::contract(),
        reused: venv.reused,
    }
}
