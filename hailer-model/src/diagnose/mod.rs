//! Turning transport and wire failures into [`ModelError`]s with the endpoint's own words.

use serde_json::Value;

use crate::conversation::ReasoningEffort;
use crate::error::{EndpointSaid, ModelError};
use crate::redact::{Redactor, cap_chars};
use crate::settings::ProviderSettings;
use crate::transport::TransportError;
use crate::wire::WireError;

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

/// The human-readable part of an error body: `error.message` (with its code), `message`,
/// `detail`, or the text itself.
pub fn endpoint_words(body: &str) -> Option<String> {
    let words = match serde_json::from_str::<Value>(body) {
        Ok(json) => words_from_json(&json).unwrap_or_else(|| json.to_string()),
        Err(_) => body.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    let words = words.trim();
    (!words.is_empty()).then(|| words.to_owned())
}

fn words_from_json(json: &Value) -> Option<String> {
    let error = json.get("error").filter(|error| !error.is_null());
    if let Some(text) = error.and_then(Value::as_str) {
        return Some(text.to_owned());
    }
    let holder = error.unwrap_or(json);
    let message = holder
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| detail_text(holder.get("detail")?))?;
    let code = holder.get("code").and_then(Value::as_str);
    Some(match code {
        Some(code) if !message.contains(code) => format!("{message} ({code})"),
        _ => message,
    })
}

/// FastAPI-style `detail`: a string or a list of `{msg}` entries.
fn detail_text(detail: &Value) -> Option<String> {
    match detail {
        Value::String(text) => Some(text.clone()),
        Value::Array(entries) => {
            let messages: Vec<&str> = entries
                .iter()
                .filter_map(|entry| entry.get("msg").and_then(Value::as_str))
                .collect();
            (!messages.is_empty()).then(|| messages.join("; "))
        }
        _ => None,
    }
}

/// Whether `text` names the model as a whole word (so a short name does not match inside others).
fn mentions_model(text: &str, model: &str) -> bool {
    if model.is_empty() {
        return false;
    }
    let text = text.to_ascii_lowercase();
    let model = model.to_ascii_lowercase();
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || "-._:/".contains(c);
    text.match_indices(&model).any(|(start, found)| {
        let before = text[..start].chars().next_back();
        let after = text[start + found.len()..].chars().next();
        !before.is_some_and(part_of_name) && !after.is_some_and(part_of_name)
    })
}

fn mentions_context_limit(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    [
        "context_length",
        "context length",
        "context window",
        "too many tokens",
    ]
    .iter()
    .any(|marker| text.contains(marker))
}

impl Diagnosis<'_> {
    fn said(&self, words: Option<String>) -> EndpointSaid {
        EndpointSaid(words.map(|words| cap_chars(&self.redactor.redact(&words), MAX_SAID_CHARS)))
    }

    fn base_url(&self) -> String {
        self.redactor.redact(&self.settings.base_url)
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
                "Check the key in {var} (or the one stored with {login}); set a valid key there."
            ),
            (Some(_), None) => format!("Store a valid key with {login}."),
        }
    }

    fn switches(&self) -> String {
        let settings = self.settings;
        let effort = self
            .reasoning_effort
            .map_or("none", ReasoningEffort::as_str);
        format!(
            "stream = {}, stream_options = {}, reasoning_effort = {effort}",
            settings.stream, settings.stream_options
        )
    }

    /// Maps an error status (after retries) and its body.
    pub fn status(&self, status: u16, body: &str, attempts: u32) -> ModelError {
        let words = endpoint_words(body);
        let text = words.clone().unwrap_or_default();
        let names_model =
            mentions_model(&text, &self.settings.model) || body.contains("model_not_found");
        let said = self.said(words);
        match status {
            401 => ModelError::Unauthorized {
                base_url: self.base_url(),
                key_hint: self.key_hint(),
                said,
            },
            400 | 413 | 422 if mentions_context_limit(body) => ModelError::ContextTooLong { said },
            400 | 404 | 422 if names_model => ModelError::UnknownModel {
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
            _ if mentions_context_limit(body) => ModelError::ContextTooLong { said },
            _ => ModelError::Rejected {
                status,
                provider: self.provider(),
                switches: self.switches(),
                said,
            },
        }
    }

    pub fn transport(&self, error: TransportError) -> ModelError {
        match error {
            TransportError::Build(detail) => ModelError::InvalidSettings {
                provider: self.provider(),
                detail: self.redactor.redact(&detail),
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

    pub fn invalid(&self, detail: String) -> ModelError {
        ModelError::InvalidReply {
            provider: self.provider(),
            wire_api: self.settings.wire_api.as_str().to_owned(),
            detail: cap_chars(&self.redactor.redact(&detail), MAX_SAID_CHARS),
        }
    }

    pub fn wire(&self, error: WireError) -> ModelError {
        match error {
            WireError::Failed { code, message } => {
                let code = code.unwrap_or_default();
                let words = if code.is_empty() || message.contains(&code) {
                    message
                } else {
                    format!("{message} ({code})")
                };
                let said = self.said(Some(words.clone()));
                if mentions_context_limit(&words) {
                    ModelError::ContextTooLong { said }
                } else if code.contains("rate_limit") {
                    ModelError::RateLimited { attempts: 1, said }
                } else {
                    ModelError::EndpointFailed { said }
                }
            }
            WireError::Incomplete(reason) => ModelError::StreamInterrupted { reason },
            WireError::Invalid(detail) => self.invalid(detail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{endpoint_words, mentions_model};

    #[test]
    fn the_model_is_found_only_as_a_whole_name() {
        assert!(mentions_model(
            "The model `gpt-5.5` does not exist",
            "gpt-5.5"
        ));
        assert!(mentions_model("model 'M' not found", "m"));
        assert!(!mentions_model("Not found: the resource is missing", "m"));
        assert!(!mentions_model("model gpt-5.5-mini is busy", "gpt-5.5"));
        assert!(!mentions_model("anything", ""));
    }

    #[test]
    fn endpoint_words_come_from_the_usual_places() {
        let openai = r#"{"error":{"message":"Bad key","code":"invalid_api_key"}}"#;
        assert_eq!(
            endpoint_words(openai).as_deref(),
            Some("Bad key (invalid_api_key)")
        );
        let fastapi = r#"{"detail":[{"msg":"field required"},{"msg":"bad type"}]}"#;
        assert_eq!(
            endpoint_words(fastapi).as_deref(),
            Some("field required; bad type")
        );
        assert_eq!(
            endpoint_words(r#"{"error":"plain"}"#).as_deref(),
            Some("plain")
        );
        assert_eq!(
            endpoint_words("  <h1>502</h1>\n Bad  gateway ").as_deref(),
            Some("<h1>502</h1> Bad gateway")
        );
        assert_eq!(endpoint_words("   "), None);
    }
}
