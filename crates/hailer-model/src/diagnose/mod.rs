//! Turning transport and wire failures into [`ModelError`]s, judged by what the request carried
//! and what the endpoint (or the gateway in front of it) actually said.

mod signs;
mod words;

use crate::conversation::ReasoningEffort;
use crate::error::{EndpointSaid, ModelError};
use crate::redact::{Redactor, cap_chars};
use crate::settings::{ProviderSettings, WireApi};
use crate::transport::TransportError;
use crate::wire::WireError;

use signs::{names_auth_problem, names_context_limit, names_unknown_model};
use words::Reading;

/// The most of the endpoint's words quoted in a message.
pub const MAX_SAID_CHARS: usize = 500;

/// Everything needed to explain a failure of one request.
pub(crate) struct Diagnosis<'a> {
    pub settings: &'a ProviderSettings,
    pub redactor: &'a Redactor,
    /// The path the request was posted to, e.g. `/v1/responses`.
    pub path: &'a str,
    pub reasoning_effort: Option<ReasoningEffort>,
}

/// The human-readable part of an error body: the innermost message a gateway passed on (with its
/// code), or the text itself.
pub fn endpoint_words(body: &str) -> Option<String> {
    Reading::of(body).words
}

impl Diagnosis<'_> {
    fn said(&self, words: Option<String>) -> EndpointSaid {
        EndpointSaid(words.map(|words| cap_chars(&self.redactor.redact(&words), MAX_SAID_CHARS)))
    }

    fn base_url(&self) -> String {
        self.redactor.redact(&self.settings.base_url).into_owned()
    }

    fn provider(&self) -> String {
        self.settings.provider_id.clone()
    }

    fn key_hint(&self) -> String {
        let provider = &self.settings.provider_id;
        let login = format!("`hailer login {provider}`");
        match (&self.settings.api_key, &self.settings.env_key) {
            (None, Some(var)) => format!("No key was sent: set {var} or store one with {login}."),
            (None, None) => format!("No key was sent: store one with {login}."),
            (Some(_), Some(var)) => format!(
                "Check the key in {var} (or the one stored with {login}); set a key this \
                 endpoint accepts there."
            ),
            (Some(_), None) => format!("Store a key this endpoint accepts with {login}."),
        }
    }

    /// The optional settings this request really carried, as `hailer.toml` spells them.
    fn sent_switches(&self) -> Vec<String> {
        let settings = self.settings;
        let mut sent = Vec::new();
        if settings.stream {
            sent.push("stream = true".to_owned());
        }
        if settings.wire_api == WireApi::Chat && settings.include_usage() {
            sent.push("stream_options = true".to_owned());
        }
        if let Some(effort) = self.reasoning_effort {
            sent.push(format!("reasoning_effort = \"{}\"", effort.as_str()));
        }
        if let Some(limit) = settings.max_output_tokens {
            sent.push(format!("max_output_tokens = {limit}"));
        }
        sent
    }

    fn rejected_advice(&self) -> String {
        let provider = &self.settings.provider_id;
        let sent = self.sent_switches();
        if sent.is_empty() {
            return format!(
                "It carried only the model name, the conversation and the tools, with no \
                 optional settings; check that provider '{provider}' really speaks the '{}' API \
                 and serves model '{}'.",
                self.settings.wire_api, self.settings.model
            );
        }
        match sent.as_slice() {
            [one] => format!(
                "It was sent with {one}, which some OpenAI-compatible servers do not accept: try \
                 turning it off (or removing it) for provider '{provider}' in hailer.toml."
            ),
            _ => format!(
                "It was sent with {}; some OpenAI-compatible servers do not accept all of these, \
                 so try turning one off (or removing it) for provider '{provider}' in hailer.toml.",
                sent.join(", ")
            ),
        }
    }

    fn unauthorized(&self, status: u16, said: EndpointSaid) -> ModelError {
        ModelError::Unauthorized {
            status,
            base_url: self.base_url(),
            key_hint: self.key_hint(),
            said,
        }
    }

    /// Maps an error status (after retries) and its body.
    pub(crate) fn status(&self, status: u16, body: &str, attempts: u32) -> ModelError {
        let reading = Reading::of(body);
        let judged = reading.judged();
        let unknown_model = names_unknown_model(&judged, &self.settings.model, status);
        let said = self.said(reading.words);
        match status {
            401 => self.unauthorized(status, said),
            400 | 403 | 422 if names_auth_problem(&judged) => self.unauthorized(status, said),
            400 | 413 | 422 if names_context_limit(&judged) => ModelError::ContextTooLong { said },
            400 | 404 | 422 if unknown_model => ModelError::UnknownModel {
                model: self.settings.model.clone(),
                provider: self.provider(),
                said,
            },
            403 => ModelError::Forbidden {
                base_url: self.base_url(),
                said,
            },
            404 | 405 => ModelError::EndpointNotFound {
                status,
                path: self.path.to_owned(),
                provider: self.provider(),
                other_wire_api: self.settings.wire_api.other().as_str().to_owned(),
                said,
            },
            429 => ModelError::RateLimited { attempts, said },
            408 | 409 | 500..=599 => ModelError::Unavailable {
                status,
                attempts,
                said,
            },
            _ if names_context_limit(&judged) => ModelError::ContextTooLong { said },
            _ => ModelError::Rejected {
                status,
                advice: self.rejected_advice(),
                said,
            },
        }
    }

    pub(crate) fn transport(&self, error: TransportError) -> ModelError {
        match error {
            TransportError::Build(detail) => ModelError::InvalidSettings {
                provider: self.provider(),
                detail: self.redactor.redact(&detail).into_owned(),
            },
            TransportError::Connect { reason, attempts } => ModelError::Connection {
                base_url: self.base_url(),
                attempts,
                reason: cap_chars(&self.redactor.redact(&reason), MAX_SAID_CHARS),
            },
            TransportError::ResponseTimeout { waited, .. } => ModelError::Timeout {
                base_url: self.base_url(),
                what: format!("no response within {} s", waited.as_secs()),
            },
            TransportError::IdleTimeout(waited) => ModelError::Timeout {
                base_url: self.base_url(),
                what: format!(
                    "the streamed reply paused for more than {} s",
                    waited.as_secs()
                ),
            },
            TransportError::BodyTimeout(waited) => ModelError::Timeout {
                base_url: self.base_url(),
                what: format!("the reply took longer than {} s", waited.as_secs()),
            },
            TransportError::Status {
                status,
                body,
                attempts,
            } => self.status(status, &body, attempts),
            TransportError::Body(reason) => ModelError::StreamInterrupted {
                reason: cap_chars(&self.redactor.redact(&reason), MAX_SAID_CHARS),
            },
            other @ (TransportError::Sse(_) | TransportError::TooLarge { .. }) => {
                self.invalid(other.to_string())
            }
        }
    }

    pub(crate) fn invalid(&self, detail: String) -> ModelError {
        ModelError::InvalidReply {
            provider: self.provider(),
            wire_api: self.settings.wire_api.as_str().to_owned(),
            detail: cap_chars(&self.redactor.redact(&detail), MAX_SAID_CHARS),
        }
    }

    /// The reply was cut off: by the output-token limit, or by a filter.
    pub(crate) fn cut_off(&self, reason: Option<&str>) -> ModelError {
        let provider = &self.settings.provider_id;
        let reason = reason.unwrap_or_default().to_ascii_lowercase();
        let (why, fix) = if reason.contains("content") || reason.contains("filter") {
            (
                "the endpoint's content filter stopped it".to_owned(),
                "Rephrase the question, or ask the endpoint's administrator about its filter."
                    .to_owned(),
            )
        } else {
            match self.settings.max_output_tokens {
                Some(limit) => (
                    format!(
                        "it reached the limit of {limit} output tokens (max_output_tokens of \
                         provider '{provider}')"
                    ),
                    format!(
                        "Raise max_output_tokens for provider '{provider}' in hailer.toml, or \
                         ask for a shorter answer or for one step at a time."
                    ),
                ),
                None => (
                    "it reached the endpoint's own limit on output tokens".to_owned(),
                    format!(
                        "Ask for a shorter answer or for one step at a time; if the endpoint's \
                         default limit is low, set max_output_tokens for provider '{provider}' \
                         in hailer.toml to a higher number."
                    ),
                ),
            }
        };
        ModelError::CutOff { why, fix }
    }

    pub(crate) fn wire(&self, error: WireError) -> ModelError {
        match error {
            WireError::Failed { code, message } => {
                let reading = Reading::of(&message);
                let words = reading.words.clone().unwrap_or(message);
                let code = code.unwrap_or_default();
                let words = if code.is_empty() || words.contains(&code) {
                    words
                } else {
                    format!("{words} ({code})")
                };
                let judged = format!("{} {}", reading.judged(), code.to_ascii_lowercase());
                let said = self.said(Some(words));
                if names_context_limit(&judged) {
                    ModelError::ContextTooLong { said }
                } else if judged.contains("rate_limit") || judged.contains("ratelimit") {
                    ModelError::RateLimited { attempts: 1, said }
                } else {
                    ModelError::EndpointFailed { said }
                }
            }
            WireError::CutOff(reason) => self.cut_off(reason.as_deref()),
            WireError::Incomplete(reason) => ModelError::StreamInterrupted { reason },
            WireError::Invalid(detail) => self.invalid(detail),
        }
    }
}
