//! HTTP transport, with no knowledge of any model API: one reqwest client, timeouts, bounded
//! retries of requests that got no usable response, and an SSE reader.

mod retry;
mod sse;

use std::time::Duration;

use bytes::Bytes;
use futures_util::TryStreamExt;
use reqwest::header::HeaderMap;
use reqwest::{Response, Url};

pub use retry::RetryPolicy;
pub(crate) use retry::retry_after;
pub(crate) use sse::{SseReader, error_chain};

/// How long to wait for each phase of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the connection (TCP and TLS).
    pub connect: Duration,
    /// From sending the request to the response headers and, for a non-streamed reply, on to
    /// its end: one window for both, not one each.
    pub response: Duration,
    /// The longest pause between two events of a streamed reply.
    pub stream_idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(15),
            response: Duration::from_secs(600),
            stream_idle: Duration::from_secs(300),
        }
    }
}

/// Largest error body kept for messages.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Largest non-streamed reply accepted.
const MAX_REPLY_BODY: usize = 64 * 1024 * 1024;

/// A failure below the model API.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TransportError {
    /// The HTTP client or the request could not be built; holds the error with its causes.
    #[error("the request could not be built: {0}")]
    Build(String),
    /// Every attempt failed before a response arrived (DNS, TCP, TLS, proxy).
    #[error("could not connect after {attempts} attempt(s): {reason}")]
    Connect {
        /// The last attempt's error with its causes, URL left out.
        reason: String,
        /// Attempts made, the first included.
        attempts: u32,
    },
    /// No response headers within [`Timeouts::response`]; never retried, since the request may
    /// have reached the endpoint.
    #[error("no response within {} s", waited.as_secs())]
    ResponseTimeout {
        /// How long was waited: the response timeout.
        waited: Duration,
    },
    /// A non-2xx status that was not retried, or still came after the last retry.
    #[error("HTTP {status} after {attempts} attempt(s)")]
    Status {
        /// The HTTP status of the last response.
        status: u16,
        /// Its body as lossy UTF-8, at most 64 KiB, or a note that it could not be read.
        body: String,
        /// Attempts made, the first included.
        attempts: u32,
    },
    /// The body broke off while being read; holds the error with its causes.
    #[error("reading the response failed: {0}")]
    Body(String),
    /// A streamed reply sent no event for this long ([`Timeouts::stream_idle`]).
    #[error("no data for {} s", .0.as_secs())]
    IdleTimeout(Duration),
    /// A whole reply did not arrive within [`Timeouts::response`] of its request being sent.
    #[error("the whole response did not arrive within {} s", .0.as_secs())]
    BodyTimeout(Duration),
    /// The event stream broke a limit (a line too long, too many bytes); holds a whole message.
    #[error("{0}")]
    Sse(String),
    /// A body exceeded its cap: 64 KiB for an error body, 64 MiB for a whole reply.
    #[error("the response is larger than {limit} bytes")]
    TooLarge {
        /// The cap that was exceeded, in bytes.
        limit: usize,
    },
}

/// A POST with a ready body.
#[derive(Clone, Debug)]
pub(crate) struct PostRequest {
    /// The full endpoint URL, query parameters included.
    pub url: Url,
    /// Every header to send; `Authorization` and headers from the environment are marked
    /// sensitive, so `Debug` hides them.
    pub headers: HeaderMap,
    /// The JSON request body, sent unchanged on every attempt.
    pub body: Bytes,
}

/// A successful (2xx) response, and when the window for reading a whole reply to it ends.
#[derive(Debug)]
pub(crate) struct Sent {
    /// The response with its body not yet read.
    pub response: Response,
    /// [`Timeouts::response`] after the request that got this response was sent.
    pub deadline: tokio::time::Instant,
}

/// The HTTP client with its timeouts and retry policy.
#[derive(Clone, Debug)]
pub(crate) struct HttpTransport {
    client: reqwest::Client,
    retry: RetryPolicy,
    timeouts: Timeouts,
}

impl HttpTransport {
    /// A client honouring the proxy variables (`HTTPS_PROXY`, `NO_PROXY`, ...) and the OS trust
    /// store; `direct` skips proxies, for loopback endpoints.
    pub(crate) fn new(
        timeouts: Timeouts,
        retry: RetryPolicy,
        direct: bool,
    ) -> Result<Self, TransportError> {
        let mut builder = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .tcp_nodelay(true)
            .user_agent(concat!("hailer/", env!("CARGO_PKG_VERSION")));
        if direct {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|error| TransportError::Build(error_chain(&error)))?;
        Ok(Self {
            client,
            retry,
            timeouts,
        })
    }

    /// Sends the request, retrying connection failures and transient statuses per the policy.
    /// Returns the first 2xx response with its body unread; any other status is an error carrying
    /// the (capped) body.
    pub(crate) async fn send(&self, request: &PostRequest) -> Result<Sent, TransportError> {
        let mut attempts = 0;
        loop {
            attempts += 1;
            let may_retry = attempts <= self.retry.max_retries;
            let sending = self
                .client
                .post(request.url.clone())
                .headers(request.headers.clone())
                .body(request.body.clone())
                .send();
            let deadline = tokio::time::Instant::now() + self.timeouts.response;
            let outcome = tokio::time::timeout_at(deadline, sending).await;
            let response = match outcome {
                // The request may have reached the endpoint: never sent twice.
                Err(_) => {
                    return Err(TransportError::ResponseTimeout {
                        waited: self.timeouts.response,
                    });
                }
                Ok(Err(error)) if error.is_builder() => {
                    return Err(TransportError::Build(error_chain(&error.without_url())));
                }
                Ok(Err(error)) => {
                    let reason = error_chain(&error.without_url());
                    if may_retry {
                        let delay = self.retry.delay(attempts - 1, None);
                        tracing::debug!(%reason, ?delay, attempts, "model request failed to connect; retrying");
                        tokio::time::sleep(delay).await;
                        continue;
                    }
                    return Err(TransportError::Connect { reason, attempts });
                }
                Ok(Ok(response)) => response,
            };
            let status = response.status().as_u16();
            if response.status().is_success() {
                return Ok(Sent { response, deadline });
            }
            if may_retry && RetryPolicy::is_retryable_status(status) {
                let delay = self
                    .retry
                    .delay(attempts - 1, retry_after(response.headers()));
                tracing::debug!(
                    status,
                    ?delay,
                    attempts,
                    "model request got a transient status; retrying"
                );
                drop(response);
                tokio::time::sleep(delay).await;
                continue;
            }
            let body = self.read_capped(response, MAX_ERROR_BODY, deadline).await;
            let body = match body {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(error) => format!("(the error body could not be read: {error})"),
            };
            return Err(TransportError::Status {
                status,
                body,
                attempts,
            });
        }
    }

    /// Reads a whole (non-streamed) reply by the end of its response window.
    pub(crate) async fn read_body(&self, sent: Sent) -> Result<Bytes, TransportError> {
        self.read_capped(sent.response, MAX_REPLY_BODY, sent.deadline)
            .await
    }

    async fn read_capped(
        &self,
        mut response: Response,
        limit: usize,
        deadline: tokio::time::Instant,
    ) -> Result<Bytes, TransportError> {
        let reading = async {
            let mut body = Vec::new();
            while let Some(chunk) = response
                .chunk()
                .await
                .map_err(|error| TransportError::Body(error_chain(&error.without_url())))?
            {
                if body.len() + chunk.len() > limit {
                    return Err(TransportError::TooLarge { limit });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(Bytes::from(body))
        };
        tokio::time::timeout_at(deadline, reading)
            .await
            .map_err(|_| TransportError::BodyTimeout(self.timeouts.response))?
    }

    /// The events of a streamed reply.
    pub(crate) fn events(&self, response: Response) -> SseReader {
        let bytes = response.bytes_stream().map_err(reqwest::Error::without_url);
        SseReader::new(bytes, self.timeouts.stream_idle)
    }
}
