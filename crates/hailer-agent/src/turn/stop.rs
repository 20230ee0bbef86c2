//! Why a turn stops before it has an answer.

use hailer_model::{ModelClient, ModelError, Redactor};

use crate::error::Error;

/// A turn that ends early: cancelled, or failed with a message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    Failed {
        message: String,
        hint: String,
    },
    /// The endpoint refused the reasoning setting the call carried; sent again without it, the
    /// call may pass. Otherwise it fails as `Failed` would.
    ReasoningRefused {
        message: String,
        hint: String,
    },
}

const KEPT_HINT: &str = "The conversation so far is kept: send your message again once this is \
                         fixed, or start afresh with /new.";

impl Stop {
    /// A failed model call, its text redacted once more in case the endpoint echoed a secret.
    pub(crate) fn model(error: &ModelError, redactor: &Redactor) -> Self {
        let hint = if error.is_retryable() {
            "This may be temporary: ask again in a moment. The conversation so far is kept."
        } else {
            KEPT_HINT
        };
        Self::Failed {
            message: redactor.redact(&error.to_string()).into_owned(),
            hint: hint.to_owned(),
        }
    }

    /// A refused reasoning setting that is not retried: an ordinary failure.
    pub(crate) fn into_failed(self) -> Self {
        match self {
            Self::ReasoningRefused { message, hint } => Self::Failed { message, hint },
            other => other,
        }
    }

    /// The model answered with nothing, even when asked again.
    pub(crate) fn empty_answer(client: &ModelClient, retries: usize) -> Self {
        let settings = client.settings();
        let retried = match retries {
            0 => String::new(),
            1 => ", also when asked a second time".to_owned(),
            n => format!(", also when asked {n} more times"),
        };
        let error = ModelError::EmptyAnswer {
            model: settings.model.clone(),
            provider: settings.provider_id.clone(),
            retried,
        };
        Self::Failed {
            message: client.redactor().redact(&error.to_string()).into_owned(),
            hint: KEPT_HINT.to_owned(),
        }
    }

    pub(crate) fn step_cap(calls: usize) -> Self {
        Self::Failed {
            message: format!(
                "The agent stopped after {calls} model calls in this turn without reaching an \
                 answer."
            ),
            hint: "Ask it to go on from where it stopped, or split the question into smaller \
                   steps."
                .to_owned(),
        }
    }
}

impl Stop {
    pub(crate) fn stream_cap(cap: usize) -> Self {
        const MIB: usize = 1024 * 1024;
        let cap = if cap >= MIB && cap.is_multiple_of(MIB) {
            format!("{} MiB", cap / MIB)
        } else {
            format!("{cap} bytes")
        };
        Self::Failed {
            message: format!(
                "The model sent more than {cap} in this turn, far more than an answer needs, \
                 so the turn was stopped."
            ),
            hint: "Ask again; if it happens again, the model or the endpoint is misbehaving: \
                   try another model with /model."
                .to_owned(),
        }
    }
}

impl From<Error> for Stop {
    fn from(error: Error) -> Self {
        Self::Failed {
            message: error.to_string(),
            hint: KEPT_HINT.to_owned(),
        }
    }
}
