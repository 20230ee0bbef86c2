//! A JSON body extractor whose refusals use the API's own error shape.

use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// Like `axum::Json`, but a body that is not the expected JSON gets a 400 with an [`ApiError`]
/// that says what was wrong.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::Json::<T>::from_request(request, state).await {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(ApiError::BadRequest(format!(
                "the request body is not what this route takes: {}",
                rejection.body_text()
            ))),
        }
    }
}
