//! The one place where failures become HTTP statuses and wire error codes.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hailer_protocol::{ErrorBody, ErrorCode};

use hailerd_kernel::KernelError;
use hailerd_session::NotebookError;
use hailerd_session::SessionError;

/// Every error a handler or guard can answer with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApiError {
    #[error("missing or wrong access token; use the token from hailerd's runtime file")]
    Unauthorized,
    #[error("requests must address this daemon as 127.0.0.1, localhost or [::1] with its port")]
    ForbiddenHost,
    #[error("requests from another web origin are refused")]
    ForbiddenOrigin,
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// Well-formed, but not something this route can do.
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Internal(String),
    /// Too much of one kind of work runs already; the caller may try again shortly.
    #[error("{0}")]
    Busy(String),
    /// A refusal whose status the framework chose (a WebSocket handshake, a query, a method).
    #[error("{message}")]
    Refused {
        status: StatusCode,
        code: ErrorCode,
        message: String,
        hint: Option<String>,
    },
    #[error("{message}")]
    Session {
        status: StatusCode,
        code: ErrorCode,
        message: String,
        hint: Option<String>,
    },
}

impl ApiError {
    fn parts(&self) -> (StatusCode, ErrorCode, Option<String>) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, None),
            Self::ForbiddenHost => (StatusCode::FORBIDDEN, ErrorCode::ForbiddenHost, None),
            Self::ForbiddenOrigin => (StatusCode::FORBIDDEN, ErrorCode::ForbiddenOrigin, None),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound, None),
            Self::BadRequest(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, None),
            Self::PayloadTooLarge(_) => (
                StatusCode::PAYLOAD_TOO_LARGE,
                ErrorCode::PayloadTooLarge,
                None,
            ),
            Self::UnsupportedMediaType(_) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ErrorCode::UnsupportedMediaType,
                Some("Send the body as JSON with Content-Type: application/json.".to_owned()),
            ),
            Self::Unprocessable(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::BadRequest,
                None,
            ),
            Self::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, None),
            Self::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Timeout, None),
            Self::Refused {
                status, code, hint, ..
            } => (*status, *code, hint.clone()),
            Self::Session {
                status, code, hint, ..
            } => (*status, *code, hint.clone()),
        }
    }
}

/// The wire code of an error known only by its status.
pub(super) fn code_for_status(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::UPGRADE_REQUIRED => ErrorCode::UpgradeRequired,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::GATEWAY_TIMEOUT | StatusCode::SERVICE_UNAVAILABLE => ErrorCode::Timeout,
        status if status.is_server_error() => ErrorCode::Internal,
        _ => ErrorCode::BadRequest,
    }
}

impl ApiError {
    /// A refused request body, by the status the extractor gave it: too large and the wrong
    /// content type keep their own statuses, anything else is a bad request.
    pub(crate) fn refused_body(status: StatusCode, detail: String) -> Self {
        let message = format!("the request body is not what this route takes: {detail}");
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => Self::PayloadTooLarge(message),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => Self::UnsupportedMediaType(message),
            _ => Self::BadRequest(message),
        }
    }
}

impl From<SessionError> for ApiError {
    fn from(error: SessionError) -> Self {
        let (status, code, hint) = match &error {
            SessionError::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound, None),
            SessionError::Config(config) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::InvalidConfig,
                config
                    .fatal
                    .first()
                    .map(|problem| problem.hint.clone())
                    .filter(|hint| !hint.is_empty()),
            ),
            SessionError::Invalid(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, None),
            SessionError::Rejected { hint, .. } => {
                (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, hint.clone())
            }
            SessionError::Store(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, None)
            }
            SessionError::Notebook(notebook) => match notebook {
                NotebookError::NotFound { .. } => {
                    (StatusCode::NOT_FOUND, ErrorCode::NotFound, None)
                }
                NotebookError::Exists(_) => (StatusCode::CONFLICT, ErrorCode::Conflict, None),
                _ => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, None),
            },
            SessionError::KernelFailed { hint, .. } => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::KernelUnavailable,
                hint.clone(),
            ),
            SessionError::Kernel(kernel @ KernelError::AuditUnwritable(_)) => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Internal,
                kernel.hint(),
            ),
            SessionError::Kernel(kernel) => (
                StatusCode::BAD_GATEWAY,
                match kernel {
                    KernelError::Marimo(hailer_marimo::Error::KernelRestarted { .. })
                    | KernelError::OutOfMemory { .. } => ErrorCode::KernelFailed,
                    _ => ErrorCode::KernelUnavailable,
                },
                kernel.hint(),
            ),
            SessionError::KernelTimeout(_) => {
                (StatusCode::GATEWAY_TIMEOUT, ErrorCode::Timeout, None)
            }
            SessionError::UnknownName { hint, .. } => (
                StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::UnknownName,
                Some(hint.clone()),
            ),
            SessionError::Stopping => (StatusCode::CONFLICT, ErrorCode::Conflict, None),
            SessionError::Busy => (
                StatusCode::CONFLICT,
                ErrorCode::Conflict,
                Some(
                    "Wait for it to end, or cancel it with `hailer cancel` (Ctrl+C in the chat \
                     that started it)."
                        .to_owned(),
                ),
            ),
            SessionError::AgentUnavailable { hint, .. } => (
                StatusCode::FAILED_DEPENDENCY,
                ErrorCode::ModelFailed,
                hint.clone(),
            ),
            SessionError::CredentialStore(_) => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Internal,
                Some(
                    "Set credentials_store = \"file\" in hailer.toml to keep keys in a file only \
                     you can read, or provide the key in the provider's environment variable."
                        .to_owned(),
                ),
            ),
            SessionError::ConsentRequired { hint, .. } => (
                StatusCode::CONFLICT,
                ErrorCode::ConsentRequired,
                Some(hint.clone()),
            ),
            SessionError::Io { .. } => {
                (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal, None)
            }
        };
        Self::Session {
            status,
            code,
            message: error.to_string(),
            hint,
        }
    }
}

impl ApiError {
    /// The wire body of this error, for replies that carry it inside a stream.
    pub(crate) fn body(&self) -> ErrorBody {
        let (status, code, hint) = self.parts();
        if status.is_server_error() {
            tracing::warn!(error = %self, "request failed");
        } else {
            tracing::debug!(error = %self, "request refused");
        }
        ErrorBody {
            code,
            message: self.to_string(),
            hint,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.parts().0;
        let body = self.body();
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
