//! Everything that can go wrong with a model call, each worded for the analyst: what happened,
//! how to fix it, and what the endpoint itself said (redacted and capped).

use std::fmt;

/// The endpoint's own words, shown after our explanation when there are any.
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
    #[error("The model provider '{provider}' is not configured correctly: {detail}")]
    InvalidSettings { provider: String, detail: String },

    #[error("The model endpoint {base_url} rejected the API key (HTTP {status}). {key_hint}{said}")]
    Unauthorized {
        status: u16,
        base_url: String,
        key_hint: String,
        said: EndpointSaid,
    },

    #[error(
        "Unknown model '{model}' for provider '{provider}'. Check the model name (the \
         [model] name setting or HAILER_MODEL) and that this endpoint serves it.{said}"
    )]
    UnknownModel {
        model: String,
        provider: String,
        said: EndpointSaid,
    },

    #[error(
        "The model endpoint {base_url} refused access (HTTP 403): the key works but may not use \
         this model or endpoint. Check the key's permissions, project or region.{said}"
    )]
    Forbidden {
        base_url: String,
        said: EndpointSaid,
    },

    #[error(
        "The model endpoint did not accept POST {path} (HTTP {status}). Check base_url of provider \
         '{provider}' (it usually ends in /v1); if the endpoint only offers the other API, set \
         wire_api = \"{other_wire_api}\".{said}"
    )]
    EndpointNotFound {
        status: u16,
        path: String,
        provider: String,
        other_wire_api: String,
        said: EndpointSaid,
    },

    #[error(
        "The model endpoint is rate-limiting requests (HTTP 429; tried {attempts} time(s)). Wait a \
         minute and ask again, or check the key's quota and billing.{said}"
    )]
    RateLimited { attempts: u32, said: EndpointSaid },

    #[error(
        "The model endpoint is unavailable (HTTP {status}; tried {attempts} time(s)). Try again in \
         a moment.{said}"
    )]
    Unavailable {
        status: u16,
        attempts: u32,
        said: EndpointSaid,
    },

    #[error(
        "The conversation no longer fits the model's context window. Start a new conversation \
         with /new, or choose a model with a larger window.{said}"
    )]
    ContextTooLong { said: EndpointSaid },

    #[error("The model endpoint rejected the request (HTTP {status}). {advice}{said}")]
    Rejected {
        status: u16,
        /// What the request carried that the endpoint may not accept, and what to change.
        advice: String,
        said: EndpointSaid,
    },

    #[error("The model's answer was cut off before it ended: {why}. {fix}")]
    CutOff { why: String, fix: String },

    #[error(
        "The model '{model}' of provider '{provider}' sent an empty answer (no text and no tool \
         call){retried}. Ask again, perhaps in other words; if it keeps happening, the model may \
         not handle this conversation or these tools: try another model with /model."
    )]
    EmptyAnswer {
        model: String,
        provider: String,
        /// Empty, or how often it was asked again.
        retried: String,
    },

    #[error(
        "The model endpoint {base_url} did not answer in time ({what}). Try again; a slow or \
         overloaded endpoint may need another moment."
    )]
    Timeout { base_url: String, what: String },

    #[error(
        "Could not reach the model endpoint at {base_url} (tried {attempts} time(s)): {reason}. \
         Check that it is running and that base_url is right; behind a proxy, set HTTPS_PROXY \
         (and NO_PROXY for local endpoints)."
    )]
    Connection {
        base_url: String,
        attempts: u32,
        reason: String,
    },

    #[error(
        "The model's reply broke off before it was complete: {reason}. It was not sent again \
         because part of the reply had already arrived; ask again to retry."
    )]
    StreamInterrupted { reason: String },

    #[error("The model endpoint reported a failure while answering.{said}")]
    EndpointFailed { said: EndpointSaid },

    #[error(
        "The model endpoint sent a reply Hailer cannot read: {detail}. Check that provider \
         '{provider}' really speaks the '{wire_api}' API (the wire_api setting)."
    )]
    InvalidReply {
        provider: String,
        wire_api: String,
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
