//! Everything that can go wrong with a model call, each worded for the analyst: what happened,
//! how to fix it, and what the endpoint itself said (redacted and capped).

use std::fmt;

/// The endpoint's own words, shown after our explanation when there are any: the innermost
/// message of its error body, redacted and cut to [`MAX_SAID_CHARS`](crate::MAX_SAID_CHARS)
/// characters. `None` when the body said nothing readable; then it displays as nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointSaid(pub Option<String>);

impl fmt::Display for EndpointSaid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(words) => write!(f, " The endpoint said: {words}"),
            None => Ok(()),
        }
    }
}

/// A failed model call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The settings cannot make a request: `base_url` is not an http(s) URL, a header name or
    /// value is not valid HTTP, or the HTTP client could not be built. Nothing was sent.
    #[error("The model provider '{provider}' is not configured correctly: {detail}")]
    InvalidSettings {
        /// The provider's id in `hailer.toml`, e.g. `openai`.
        provider: String,
        /// What is wrong, as a clause that names the setting.
        detail: String,
    },

    /// The endpoint refused the key: HTTP 401, or a 400, 403 or 422 whose body names a key or
    /// authentication problem.
    #[error("The model endpoint {base_url} rejected the API key (HTTP {status}). {key_hint}{said}")]
    Unauthorized {
        /// The HTTP status received.
        status: u16,
        /// The provider's `base_url`, with secrets redacted.
        base_url: String,
        /// Whether a key was sent and where to set one (the environment variable or
        /// `hailer login`), as whole sentences.
        key_hint: String,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// The endpoint does not serve the configured model: a 400, 404 or 422 whose body says the
    /// model is unknown.
    #[error(
        "Unknown model '{model}' for provider '{provider}'. Check the model name (the \
         [model] name setting or HAILER_MODEL) and that this endpoint serves it.{said}"
    )]
    UnknownModel {
        /// The model name that was sent, from the provider settings.
        model: String,
        /// The provider's id in `hailer.toml`.
        provider: String,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// HTTP 403 whose body names neither a key problem nor an unknown model.
    #[error(
        "The model endpoint {base_url} refused access (HTTP 403): the key works but may not use \
         this model or endpoint. Check the key's permissions, project or region.{said}"
    )]
    Forbidden {
        /// The provider's `base_url`, with secrets redacted.
        base_url: String,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// HTTP 404 or 405: usually a wrong `base_url`, or an endpoint that only speaks the other
    /// wire API.
    #[error(
        "The model endpoint did not accept POST {path} (HTTP {status}). Check base_url of provider \
         '{provider}' (it usually ends in /v1); if the endpoint only offers the other API, set \
         wire_api = \"{other_wire_api}\".{said}"
    )]
    EndpointNotFound {
        /// The HTTP status received (404 or 405).
        status: u16,
        /// The URL path the request was posted to, e.g. `/v1/responses`.
        path: String,
        /// The provider's id in `hailer.toml`.
        provider: String,
        /// The `wire_api` value of the API not used (`chat` or `responses`), suggested as a fix.
        other_wire_api: String,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// HTTP 429 after the retries ran out, or a failure inside a reply whose code names a rate
    /// limit.
    #[error(
        "The model endpoint is rate-limiting requests (HTTP 429; tried {attempts} time(s)). Wait a \
         minute and ask again, or check the key's quota and billing.{said}"
    )]
    RateLimited {
        /// Requests sent, the first included; 1 when the limit was reported inside a reply.
        attempts: u32,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// A transient status (408, 409 or 5xx) that persisted through the retries.
    #[error(
        "The model endpoint is unavailable (HTTP {status}; tried {attempts} time(s)). Try again in \
         a moment.{said}"
    )]
    Unavailable {
        /// The HTTP status of the last attempt.
        status: u16,
        /// Requests sent, the first included.
        attempts: u32,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// The request was refused (or failed inside the reply) because the conversation exceeds
    /// the model's context window, as judged from the endpoint's words.
    #[error(
        "The conversation no longer fits the model's context window. Start a new conversation \
         with /new, or choose a model with a larger window.{said}"
    )]
    ContextTooLong {
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// Any other error status, typically a 400 over a setting the endpoint does not accept.
    #[error("The model endpoint rejected the request (HTTP {status}). {advice}{said}")]
    Rejected {
        /// The HTTP status received.
        status: u16,
        /// What the request carried that the endpoint may not accept, and what to change.
        advice: String,
        /// The endpoint's own words, if any.
        said: EndpointSaid,
    },

    /// The endpoint ended the answer early and said so: the output-token limit
    /// (`finish_reason: "length"`, `status: "incomplete"`) or a content filter.
    #[error("The model's answer was cut off before it ended: {why}. {fix}")]
    CutOff {
        /// Why it stopped, as a clause (`it reached the limit of 800 output tokens ...`).
        why: String,
        /// What to change, as a whole sentence.
        fix: String,
    },

    /// The model answered with neither text nor a tool call. Never returned by this crate's
    /// client: the turn loop builds it when asking again did not help.
    #[error(
        "The model '{model}' of provider '{provider}' sent an empty answer (no text and no tool \
         call){retried}. Ask again, perhaps in other words; if it keeps happening, the model may \
         not handle this conversation or these tools: try another model with /model."
    )]
    EmptyAnswer {
        /// The model name that was sent.
        model: String,
        /// The provider's id in `hailer.toml`.
        provider: String,
        /// Empty, or a clause starting with a comma saying how often it was asked again
        /// (`, also when asked a second time`).
        retried: String,
    },

    /// A timeout of [`Timeouts`](crate::Timeouts) ran out: no response headers, a streamed reply
    /// pausing too long, or a whole reply arriving too slowly. The client does not resend the
    /// request, since it may have reached the endpoint.
    #[error(
        "The model endpoint {base_url} did not answer in time ({what}). Try again; a slow or \
         overloaded endpoint may need another moment."
    )]
    Timeout {
        /// The provider's `base_url`, with secrets redacted.
        base_url: String,
        /// Which wait ran out and for how long, e.g. `no response within 600 s`.
        what: String,
    },

    /// No response at all: the connection (DNS, TCP, TLS, proxy) failed on every attempt.
    #[error(
        "Could not reach the model endpoint at {base_url} (tried {attempts} time(s)): {reason}. \
         Check that it is running and that base_url is right; behind a proxy, set HTTPS_PROXY \
         (and NO_PROXY for local endpoints)."
    )]
    Connection {
        /// The provider's `base_url`, with secrets redacted.
        base_url: String,
        /// Connection attempts made, the first included.
        attempts: u32,
        /// The HTTP client's error with its causes, redacted and capped at 500 characters.
        reason: String,
    },

    /// The reply stopped before its completion marker (the connection dropped, the stream ended
    /// early, or a whole JSON body was truncated). Not resent, because part had arrived.
    #[error(
        "The model's reply broke off before it was complete: {reason}. It was not sent again \
         because part of the reply had already arrived; ask again to retry."
    )]
    StreamInterrupted {
        /// What broke off, as a clause (`the stream ended in the middle of a tool call`).
        reason: String,
    },

    /// A 2xx reply that carried a failure of its own: an `error` field or event, or a
    /// `response.failed` event, not about context length or rate limits.
    #[error("The model endpoint reported a failure while answering.{said}")]
    EndpointFailed {
        /// The failure's message, with its code when the message lacks it.
        said: EndpointSaid,
    },

    /// A 2xx reply that does not follow the wire API: bad JSON, a missing `choices` or `output`,
    /// an over-long stream line or an over-large reply.
    #[error(
        "The model endpoint sent a reply Hailer cannot read: {detail}. Check that provider \
         '{provider}' really speaks the '{wire_api}' API (the wire_api setting)."
    )]
    InvalidReply {
        /// The provider's id in `hailer.toml`.
        provider: String,
        /// The `wire_api` in use (`responses` or `chat`).
        wire_api: String,
        /// What was wrong, redacted and capped at 500 characters.
        detail: String,
    },
}

/// The crate's result type.
pub type Result<T, E = ModelError> = std::result::Result<T, E>;

impl ModelError {
    /// Whether the failure is transient, so the same request may succeed if sent again later.
    /// The client has already retried what it safely could.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Unavailable { .. }
                | Self::Timeout { .. }
                | Self::Connection { .. }
                | Self::StreamInterrupted { .. }
        )
    }

    /// Whether the endpoint refused the request (HTTP 400 or 422) in words that name the
    /// reasoning setting (`reasoning_effort`, `reasoning.effort`, `reasoning`): sent again
    /// without it, the request may pass.
    pub fn refuses_reasoning(&self) -> bool {
        match self {
            Self::Rejected {
                status: 400 | 422,
                said: EndpointSaid(Some(words)),
                ..
            } => words.to_ascii_lowercase().contains("reasoning"),
            _ => false,
        }
    }

    /// The HTTP status behind the error, if one was received.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Forbidden { .. } => Some(403),
            Self::RateLimited { .. } => Some(429),
            Self::Unauthorized { status, .. }
            | Self::EndpointNotFound { status, .. }
            | Self::Unavailable { status, .. }
            | Self::Rejected { status, .. } => Some(*status),
            _ => None,
        }
    }
}
