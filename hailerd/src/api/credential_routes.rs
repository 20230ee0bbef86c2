//! `/v1/credentials/...`: `hailer login`, `hailer logout`, and whether a key is stored
//! (`hailer doctor`).

use axum::Json;
use axum::extract::State;
use hailer_protocol::{CredentialsResponse, LoginParams, LogoutParams};
use secrecy::SecretString;

use super::error::ApiError;
use super::json_body::JsonBody;
use crate::agent::login;
use crate::state::Daemon;

/// Keeps a provider's API key in the store the workspace's configuration chooses (the OS
/// credential store, or a 0600 file). A key in the client's environment still wins over it.
#[utoipa::path(
    post, path = "/v1/credentials/login", tag = "credentials",
    request_body = LoginParams,
    responses(
        (status = 200, body = CredentialsResponse),
        (status = 400, description = "Empty or malformed key, unknown provider", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The credential store is not available", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn login(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<LoginParams>,
) -> Result<Json<CredentialsResponse>, ApiError> {
    let key = SecretString::from(params.key);
    let done = login::login(&params.target, key, &daemon.config.config_dir).await?;
    tracing::info!(provider = %done.provider, stored_in = ?done.stored_in, "key stored");
    Ok(Json(done))
}

/// Removes a provider's stored key from every place the configuration's store setting uses.
#[utoipa::path(
    post, path = "/v1/credentials/logout", tag = "credentials",
    request_body = LogoutParams,
    responses(
        (status = 200, body = CredentialsResponse),
        (status = 400, description = "Unknown provider", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The credential store is not available", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn logout(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<LogoutParams>,
) -> Result<Json<CredentialsResponse>, ApiError> {
    let done = login::logout(&params.target, &daemon.config.config_dir).await?;
    tracing::info!(provider = %done.provider, removed = done.removed, "key removed");
    Ok(Json(done))
}

/// Says whether the provider has a key in the store the configuration chooses, and where; the
/// key itself never leaves the daemon.
#[utoipa::path(
    post, path = "/v1/credentials/status", tag = "credentials",
    request_body = LogoutParams,
    responses(
        (status = 200, body = CredentialsResponse),
        (status = 400, description = "Unknown provider", body = hailer_protocol::ErrorBody),
        (status = 422, description = "The configuration has fatal problems", body = hailer_protocol::ErrorBody),
        (status = 503, description = "The credential store is not available", body = hailer_protocol::ErrorBody),
    ),
    security(("bearer" = []))
)]
pub async fn status(
    State(daemon): State<Daemon>,
    JsonBody(params): JsonBody<LogoutParams>,
) -> Result<Json<CredentialsResponse>, ApiError> {
    Ok(Json(
        login::status(&params.target, &daemon.config.config_dir).await?,
    ))
}
