use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every error hailerd answers has this body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it, when there is something to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Stable machine-readable error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    Unauthorized,
    ForbiddenHost,
    ForbiddenOrigin,
    NotFound,
    BadRequest,
    /// The request body is larger than the route takes.
    PayloadTooLarge,
    /// The request body is not sent as `application/json`.
    UnsupportedMediaType,
    InvalidConfig,
    Conflict,
    /// The request needs the user's explicit agreement first (the message says to what).
    ConsentRequired,
    KernelUnavailable,
    KernelFailed,
    ModelFailed,
    Timeout,
    Internal,
}
