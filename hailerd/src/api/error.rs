//! The one place where failures become HTTP statuses and wire error codes.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hailer_protocol::{ErrorBody, ErrorCode};

/// Every error a handler or guard can answer with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("missing or wrong access token; use the token from hailerd's runtime file")]
    Unauthorized,
    #[error("requests must address this daemon as 127.0.0.1, localhost or [::1] with its port")]
    ForbiddenHost,
    #[error("requests from another web origin are refused")]
    ForbiddenOrigin,
    #[error("{0}")]
    NotFound(String),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, ErrorCode) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized),
            Self::ForbiddenHost => (StatusCode::FORBIDDEN, ErrorCode::ForbiddenHost),
            Self::ForbiddenOrigin => (StatusCode::FORBIDDEN, ErrorCode::ForbiddenOrigin),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        } else {
            tracing::debug!(error = %self, "request refused");
        }
        let body = ErrorBody {
            code,
            message: self.to_string(),
            hint: None,
        };
        let mut response = (status, Json(body)).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}
