//! A JSON body extractor whose refusals use the API's own error shape.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::{HeaderMap, StatusCode, header};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// Like `axum::Json`, but a body that is not the expected JSON gets an [`ApiError`] that says
/// what was wrong: 413 when it is too large, 415 when it is not sent as JSON, else 400. Every body this API takes is a JSON object: an array is refused
/// even where its items could fill the fields in order.
#[derive(Debug)]
pub(super) struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let headers = request.headers().clone();
        if !is_json(&headers) {
            return Err(ApiError::refused_body(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "it must be sent with Content-Type: application/json".to_owned(),
            ));
        }
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                ApiError::refused_body(rejection.status(), rejection.body_text())
            })?;
        let starts_an_object = bytes
            .iter()
            .find(|byte| !byte.is_ascii_whitespace())
            .is_some_and(|byte| *byte == b'{');
        if !bytes.is_empty() && !starts_an_object {
            return Err(ApiError::refused_body(
                StatusCode::BAD_REQUEST,
                "it must be a JSON object".to_owned(),
            ));
        }
        let mut rebuilt = Request::new(Body::from(bytes));
        *rebuilt.headers_mut() = headers;
        match axum::Json::<T>::from_request(rebuilt, state).await {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(ApiError::refused_body(
                rejection.status(),
                rejection.body_text(),
            )),
        }
    }
}

/// The body of a route that takes none: nothing, or an empty JSON object (`{}`), which some
/// clients send out of habit. Anything else is refused with 400 as soon as it is seen, so a
/// large body is not buffered for nothing.
#[derive(Debug)]
pub(super) struct NoBody;

/// More than an empty object with some spaces around it.
const MAX_EMPTY_BODY: usize = 64;

impl<S: Send + Sync> FromRequest<S> for NoBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let refused = || {
            ApiError::BadRequest(
                "this route takes no request body; send none (or an empty JSON object)".to_owned(),
            )
        };
        let mut body = request.into_body().into_data_stream();
        let mut seen = Vec::new();
        while let Some(chunk) = futures_util::StreamExt::next(&mut body).await {
            let chunk = chunk.map_err(|_| refused())?;
            if seen.len() + chunk.len() > MAX_EMPTY_BODY {
                return Err(refused());
            }
            seen.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&seen);
        let inner = text.trim();
        let empty_object = inner
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'))
            .is_some_and(|between| between.trim().is_empty());
        if inner.is_empty() || empty_object {
            Ok(Self)
        } else {
            Err(refused())
        }
    }
}

/// `Content-Type: application/json`, with parameters or as a `+json` type, as `axum::Json` takes.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
    else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("application")
        && (subtype.eq_ignore_ascii_case("json") || subtype.to_ascii_lowercase().ends_with("+json"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::response::IntoResponse;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Params {
        name: String,
    }

    async fn status_of(content_type: Option<&str>, body: Vec<u8>) -> u16 {
        let mut builder = Request::builder().method("POST").uri("/");
        if let Some(content_type) = content_type {
            builder = builder.header(header::CONTENT_TYPE, content_type);
        }
        let request = builder.body(Body::from(body)).unwrap();
        match JsonBody::<Params>::from_request(request, &()).await {
            Ok(_) => 200,
            Err(error) => error.into_response().status().as_u16(),
        }
    }

    #[tokio::test]
    async fn a_bodiless_route_takes_an_empty_body_only() {
        let cases = [
            (Vec::new(), true),
            (b"{}".to_vec(), true),
            (b" { }\n".to_vec(), true),
            (br#"{"a": 1}"#.to_vec(), false),
            (b"[]".to_vec(), false),
            (b"x".to_vec(), false),
            (vec![b' '; 10 << 20], false),
        ];
        for (body, accepted) in cases {
            let shown = String::from_utf8_lossy(&body[..body.len().min(9)]).into_owned();
            let request = Request::builder()
                .method("POST")
                .uri("/")
                .body(Body::from(body))
                .unwrap();
            let verdict = NoBody::from_request(request, &()).await;
            assert_eq!(verdict.is_ok(), accepted, "{shown:?}");
            if let Err(error) = verdict {
                assert_eq!(error.into_response().status(), 400);
            }
        }
    }

    #[tokio::test]
    async fn each_refusal_keeps_its_own_status() {
        let json = Some("application/json");
        let object = br#"{"name": "a"}"#.to_vec();
        let cases: [(Option<&str>, Vec<u8>, u16); 11] = [
            (json, object.clone(), 200),
            (Some("application/json; charset=utf-8"), object.clone(), 200),
            (Some("application/merge-patch+json"), object.clone(), 200),
            (None, object.clone(), 415),
            (Some("text/plain"), object.clone(), 415),
            (
                Some("application/x-www-form-urlencoded"),
                b"name=a".to_vec(),
                415,
            ),
            (Some("application/jsonx"), object.clone(), 415),
            (json, br#"["a"]"#.to_vec(), 400),
            (json, br#"{"name": 1}"#.to_vec(), 400),
            (json, b"{".to_vec(), 400),
            // Larger than axum's default body limit of 2 MB.
            (
                json,
                format!(r#"{{"name": "{}"}}"#, "a".repeat(3 * 1024 * 1024)).into_bytes(),
                413,
            ),
        ];
        for (content_type, body, expected) in cases {
            let shown = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
            assert_eq!(
                status_of(content_type, body).await,
                expected,
                "{content_type:?} {shown}"
            );
        }
    }
}
