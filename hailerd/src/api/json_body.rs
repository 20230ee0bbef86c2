//! A JSON body extractor whose refusals use the API's own error shape.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// Like `axum::Json`, but a body that is not the expected JSON gets a 400 with an [`ApiError`]
/// that says what was wrong. Every body this API takes is a JSON object: an array is refused
/// even where its items could fill the fields in order.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let refused = |detail: String| {
            ApiError::BadRequest(format!(
                "the request body is not what this route takes: {detail}"
            ))
        };
        let headers = request.headers().clone();
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| refused(rejection.body_text()))?;
        let starts_an_object = bytes
            .iter()
            .find(|byte| !byte.is_ascii_whitespace())
            .is_some_and(|byte| *byte == b'{');
        if !bytes.is_empty() && !starts_an_object {
            return Err(refused("it must be a JSON object".to_owned()));
        }
        let mut rebuilt = Request::new(Body::from(bytes));
        *rebuilt.headers_mut() = headers;
        match axum::Json::<T>::from_request(rebuilt, state).await {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(refused(rejection.body_text())),
        }
    }
}
