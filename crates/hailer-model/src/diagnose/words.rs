//! Reading an error body for what it says, through the wrappers gateways put around the error of
//! the server behind them:
//!
//! - OpenAI and llama.cpp: `{"error": {"message", "type", "code"}}`;
//! - vLLM: `{"object": "error", "message", "type", "code"}` at the top level;
//! - OpenRouter: `{"error": {"message", "code", "metadata": {"raw": "<the provider's body>"}}}`;
//! - LiteLLM: the backend's error inside its own message, after exception names
//!   (`litellm.NotFoundError: NotFoundError: OpenAIException - {...}`) and before its routing
//!   notes (`Received Model Group=X`, `model group 'X' failed`, `model=X. context_window_fallbacks=…`),
//!   sometimes as a Python dict (`{'error': '…'}`);
//! - FastAPI: `{"detail": "…"}` or `{"detail": [{"msg": "…"}]}`;
//! - any of these framed as server-sent events (`data: {...}` lines, `data: [DONE]`).

use serde_json::Value;

/// How deep wrappers are followed; a hostile body cannot make us recurse further.
const MAX_DEPTH: usize = 4;

/// What an error body says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Reading {
    /// The words to quote: the innermost message, with its code when that adds something.
    pub words: Option<String>,
    /// Codes, types and exception names seen on the way in (`invalid_api_key`,
    /// `no_db_connection`, `NotFoundError`), lowercased.
    pub codes: Vec<String>,
}

impl Reading {
    pub(super) fn of(body: &str) -> Self {
        let mut reading = Self::default();
        let words = read(body, 0, &mut reading.codes);
        reading.words = words
            .map(|words| words.trim().to_owned())
            .filter(|words| !words.is_empty());
        reading
    }

    /// The words and codes together, lowercased: what markers are looked for in.
    pub(super) fn judged(&self) -> String {
        let mut text = self.words.clone().unwrap_or_default().to_ascii_lowercase();
        for code in &self.codes {
            text.push(' ');
            text.push_str(code);
        }
        text
    }
}

fn read(text: &str, depth: usize, codes: &mut Vec<String>) -> Option<String> {
    let payload = sse_payload(text);
    let text = payload.as_deref().unwrap_or(text).trim();
    if depth >= MAX_DEPTH {
        return Some(collapse(text));
    }
    if let Ok(json) = serde_json::from_str::<Value>(text) {
        return match &json {
            Value::Object(_) => {
                from_json(&json, depth, codes).or_else(|| Some(collapse(&json.to_string())))
            }
            Value::String(inner) => read(inner, depth + 1, codes),
            // Gemini's OpenAI-compatible endpoint wraps its error in a list.
            Value::Array(items) => match items.first() {
                Some(first @ Value::Object(_)) => {
                    from_json(first, depth + 1, codes).or_else(|| Some(collapse(&json.to_string())))
                }
                _ => Some(collapse(&json.to_string())),
            },
            other => Some(other.to_string()),
        };
    }
    if let Some(inner) = python_dict_text(text) {
        return read(&inner, depth + 1, codes);
    }
    let unwrapped = unwrap_gateway(text, codes);
    if unwrapped.starts_with('{') && unwrapped != text {
        // The backend's body, often followed by the gateway's full stop.
        let body = unwrapped.trim_end_matches(['.', ' ']);
        return read(body, depth + 1, codes);
    }
    Some(collapse(&unwrapped))
}

/// The first event's data of an SSE-framed body, when the body is framed so (read by the one
/// SSE parser, [`hailer_sse`]).
fn sse_payload(text: &str) -> Option<String> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with("data:") || trimmed.starts_with("event:")) {
        return None;
    }
    let mut parser = hailer_sse::SseParser::new(trimmed.len(), trimmed.len());
    let mut events = parser.feed(trimmed.as_bytes()).ok()?;
    events.extend(parser.finish());
    events
        .into_iter()
        .map(|event| event.data.trim().to_owned())
        .find(|data| !data.is_empty() && data != "[DONE]")
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn from_json(json: &Value, depth: usize, codes: &mut Vec<String>) -> Option<String> {
    let error = json.get("error").filter(|error| !error.is_null());
    if let Some(text) = error.and_then(Value::as_str) {
        return read(text, depth + 1, codes);
    }
    let holder = error.unwrap_or(json);
    for key in ["code", "type", "status"] {
        match holder.get(key) {
            Some(Value::String(code)) if meaningful(code) => codes.push(code.to_ascii_lowercase()),
            _ => {}
        }
    }
    // OpenRouter passes the provider's own body on in metadata.raw.
    if let Some(raw) = holder.pointer("/metadata/raw") {
        let inner = match raw {
            Value::String(text) => read(text, depth + 1, codes),
            Value::Object(_) => from_json(raw, depth + 1, codes),
            _ => None,
        };
        if let Some(inner) = inner.filter(|inner| !inner.is_empty()) {
            return Some(inner);
        }
    }
    let message = holder
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| detail_text(holder.get("detail")?))?;
    let message = read(&message, depth + 1, codes).unwrap_or(message);
    let code = ["code", "type"]
        .iter()
        .filter_map(|key| holder.get(*key).and_then(Value::as_str))
        .find(|code| meaningful(code) && !is_generic_type(code));
    Some(match code {
        Some(code) if !message.contains(code) => format!("{message} ({code})"),
        _ => message,
    })
}

/// A code worth showing: not empty, not a bare status number, not Python's `None`.
fn meaningful(code: &str) -> bool {
    let code = code.trim();
    !code.is_empty()
        && !code.bytes().all(|b| b.is_ascii_digit())
        && !matches!(code, "None" | "null")
}

/// Error types that only restate the status (`invalid_request_error`, vLLM's `NotFoundError`).
fn is_generic_type(code: &str) -> bool {
    code.ends_with("_error") || code.ends_with("Error") || code.ends_with("Exception")
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

/// The message of a Python dict printed into text, as LiteLLM passes some errors on:
/// `{'error': '…'}` or `{'message': '…', …}`.
fn python_dict_text(text: &str) -> Option<String> {
    if !text.starts_with("{'") {
        return None;
    }
    for key in ["message", "error", "detail"] {
        let opening = format!("'{key}': ");
        let Some(start) = text.find(&opening) else {
            continue;
        };
        let rest = &text[start + opening.len()..];
        let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let body = &rest[1..];
        // The value ends at its closing quote followed by `,` or `}`.
        let end = body.match_indices(quote).map(|(at, _)| at).find(|at| {
            let after = body[at + 1..].trim_start();
            after.starts_with(',') || after.starts_with('}')
        })?;
        return Some(body[..end].to_owned());
    }
    None
}

/// Takes LiteLLM's exception names and routing notes off `text`; the names go to `codes`.
fn unwrap_gateway(text: &str, codes: &mut Vec<String>) -> String {
    let mut text = text.trim().to_owned();
    // Routing notes after the backend's words.
    for note in ["Received Model Group=", "Available Model Group Fallbacks="] {
        if let Some(at) = text.find(note) {
            text.truncate(at);
        }
    }
    if let Some(at) = text.find("context_window_fallbacks=") {
        let start = text[..at].rfind("model=").unwrap_or(at);
        codes.push("context_window_exceeded".to_owned());
        text.truncate(start);
    }
    text = remove_model_group_failed(&text);
    // Exception names before them: `litellm.NotFoundError: NotFoundError: OpenAIException - `.
    loop {
        let trimmed = text.trim_start();
        let Some((name, rest)) = exception_prefix(trimmed) else {
            break;
        };
        codes.push(name.to_ascii_lowercase());
        text = rest.to_owned();
    }
    if let Some(rest) = text.trim_start().strip_prefix("Error code: ") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            text = rest[digits..]
                .trim_start_matches([' ', '-', ':'])
                .to_owned();
        }
    }
    let mut text = text
        .trim()
        .trim_end_matches([',', ':', ';', '-', ' '])
        .to_owned();
    while text.ends_with("..") {
        text.pop();
    }
    text
}

/// `model group 'X' failed` (with what joins it to the sentence) taken out of `text`.
fn remove_model_group_failed(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let Some(start) = lower.find("model group '") else {
        return text.to_owned();
    };
    let name_start = start + "model group '".len();
    let Some(name_len) = lower[name_start..].find('\'') else {
        return text.to_owned();
    };
    let after_name = name_start + name_len + 1;
    let end = if lower[after_name..].starts_with(" failed") {
        after_name + " failed".len()
    } else {
        after_name
    };
    let head = text[..start].trim_end();
    let head = head
        .strip_suffix(" for")
        .or_else(|| head.strip_suffix(" in"))
        .unwrap_or(head);
    let tail = text[end..].trim_start_matches(['.', ':', ',']);
    format!("{}{}", head.trim_end(), tail)
}

/// An exception name and its separator at the start of `text`, such as `litellm.BadRequestError: `
/// or `OpenAIException - `.
fn exception_prefix(text: &str) -> Option<(&str, &str)> {
    let name_len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..name_len];
    let short = name.rsplit('.').next().unwrap_or(name);
    if !(short.ends_with("Error") || short.ends_with("Exception")) || short.len() <= 5 {
        return None;
    }
    let rest = &text[name_len..];
    let rest = rest
        .strip_prefix(": ")
        .or_else(|| rest.strip_prefix(" - "))?;
    Some((short, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(body: &str) -> Option<String> {
        Reading::of(body).words
    }

    #[test]
    fn the_usual_places() {
        let openai = r#"{"error":{"message":"Bad key","code":"invalid_api_key"}}"#;
        assert_eq!(words(openai).as_deref(), Some("Bad key (invalid_api_key)"));
        let fastapi = r#"{"detail":[{"msg":"field required"},{"msg":"bad type"}]}"#;
        assert_eq!(words(fastapi).as_deref(), Some("field required; bad type"));
        assert_eq!(words(r#"{"error":"plain"}"#).as_deref(), Some("plain"));
        assert_eq!(
            words("  <h1>502</h1>\n Bad  gateway ").as_deref(),
            Some("<h1>502</h1> Bad gateway")
        );
        assert_eq!(words("   "), None);
    }

    #[test]
    fn litellm_wrappers_come_off() {
        let body = r#"{"error":{"message":"litellm.NotFoundError: NotFoundError: OpenAIException - {\"detail\": \"Not Found\"}. Received Model Group=backed\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"404"}}"#;
        let reading = Reading::of(body);
        assert_eq!(reading.words.as_deref(), Some("Not Found"));
        assert!(reading.codes.contains(&"notfounderror".to_owned()));
        let failed = "litellm.BadRequestError: Bad things happened for model group 'x' failed.";
        assert_eq!(words(failed).as_deref(), Some("Bad things happened"));
    }

    #[test]
    fn python_dicts_and_sse_frames() {
        assert_eq!(
            python_dict_text("{'error': 'it's here', 'x': 1}").as_deref(),
            Some("it's here")
        );
        let framed = "data: {\"error\":{\"message\":\"stop\"}}\n\ndata: [DONE]\n\n";
        assert_eq!(words(framed).as_deref(), Some("stop"));
        let cases = [
            (
                "event: error\ndata: {\"error\":\"first\"}\n\n",
                Some("{\"error\":\"first\"}"),
            ),
            ("data:\n\ndata: [DONE]\n\ndata:  later \n\n", Some("later")),
            (
                "data: {\"error\":\ndata: \"split\"}\n\n",
                Some("{\"error\":\n\"split\"}"),
            ),
            ("data: unfinished", Some("unfinished")),
            ("event: ping\n\n", None),
            ("not framed", None),
        ];
        for (body, payload) in cases {
            assert_eq!(sse_payload(body).as_deref(), payload, "{body:?}");
        }
    }

    #[test]
    fn hostile_nesting_is_bounded() {
        let mut body = String::from("deepest");
        for _ in 0..40 {
            body = format!("{{\"error\":{{\"message\":{}}}}}", serde_json::json!(body));
            if body.len() > 100_000 {
                break;
            }
        }
        let read = words(&body).unwrap_or_default();
        assert!(!read.is_empty());
        assert!(read.len() <= body.len());
    }
}
