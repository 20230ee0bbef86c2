//! `/v1/credentials/...`: `hailer login`, `hailer logout`, and whether the model can be
//! reached with the settings and key at hand (`hailer doctor`, `hailer status`).

use axum::Json;
use axum::extract::State;
use hailer_protocol::{
    CredentialTarget, CredentialsResponse, LoginParams, ModelCheck, StartSessionParams,
};
use secrecy::SecretString;

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::daemon_state::Daemon;

/// Keeps a provider's API key in the store the workspace's configuration chooses (the OS
/// credential store, or a 0600 file). A key in the client's environment still wins over it.
#[utoipa::path(
    post, path = "/v1/credentials/login", operation_id = "login", tag = "credentials",
    request_body = LoginParams,
    responses(
        (status = 200, body = CredentialsResponse),
        (status = 400, description = "Empty or malformed key, unknown provider", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The credential store is not available", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn login(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<LoginParams>,
) -> Result<Json<CredentialsResponse>, ApiError> {
    let key = SecretString::from(params.key);
    let done = hailerd_agent::login(&params.target, key, &daemon.config.folders.config).await?;
    tracing::info!(provider = %done.provider, stored_in = ?done.stored_in, "key stored");
    Ok(Json(done))
}

/// Removes a provider's stored key from every place the configuration's store setting uses.
#[utoipa::path(
    post, path = "/v1/credentials/logout", operation_id = "logout", tag = "credentials",
    request_body = CredentialTarget,
    responses(
        (status = 200, body = CredentialsResponse),
        (status = 400, description = "Unknown provider", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The credential store is not available", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn logout(
    State(daemon): State<Daemon>,
    JsonBody(target): JsonBody<CredentialTarget>,
) -> Result<Json<CredentialsResponse>, ApiError> {
    let done = hailerd_agent::logout(&target, &daemon.config.folders.config).await?;
    tracing::info!(provider = %done.provider, removed = done.removed, "key removed");
    Ok(Json(done))
}

/// Judges, as a session would at its next attach or turn, whether the model the asking shell's
/// workspace names can be reached: the provider is declared and usable and a key is at hand,
/// from the request's variables, from what the workspace's live session keeps (a key another
/// client sent), or where `hailer login` kept it. The key never leaves the daemon; the answer
/// says only where it came from.
#[utoipa::path(
    post, path = "/v1/credentials/check", operation_id = "checkModel", tag = "credentials",
    request_body = StartSessionParams,
    responses(
        (status = 200, body = ModelCheck),
        (status = 400, description = "Malformed request", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(super) async fn check(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<StartSessionParams>,
) -> Result<Json<ModelCheck>, ApiError> {
    let mut live = Vec::new();
    for session in daemon.sessions.all().await {
        live.push((session.workspace().to_path_buf(), session.client_env()));
    }
    Ok(Json(
        hailerd_agent::check_model(&params, &daemon.config.folders.config, live).await?,
    ))
}
