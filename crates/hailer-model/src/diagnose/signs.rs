//! What an endpoint's words are taken to mean. Every judgement here reads the innermost words
//! (gateway wrappers already taken off, see `words`) and the codes found on the way, lowercased.

/// Whether `text` names the model as a whole token: quotes, `=` and punctuation around it count
/// as separators, so `model=no-such-model.` names `no-such-model`, while `gpt-5.5-mini` does not
/// name `gpt-5.5`.
pub(crate) fn mentions_model(text: &str, model: &str) -> bool {
    if model.trim().is_empty() {
        return false;
    }
    let text = text.to_ascii_lowercase();
    let model = model.to_ascii_lowercase();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    // `.`, `:` and `/` join parts of a name only when more of the name follows.
    let joiner = |c: char| ".:/@".contains(c);
    text.match_indices(&model).any(|(start, found)| {
        let before = text[..start].chars().next_back();
        let mut after = text[start + found.len()..].chars();
        let next = after.next();
        let continues = match next {
            Some(c) if word(c) => true,
            Some(c) if joiner(c) => after.next().is_some_and(word),
            _ => false,
        };
        !before.is_some_and(|c| word(c) || joiner(c)) && !continues
    })
}

fn any(text: &str, markers: &[&str]) -> bool {
    markers.iter().any(|marker| text.contains(marker))
}

pub(crate) fn names_context_limit(judged: &str) -> bool {
    any(
        judged,
        &[
            "context_length",
            "context length",
            "context window",
            "context_window_exceeded",
            "contextwindowexceeded",
            "too many tokens",
            "maximum context",
            "exceeds the available context",
        ],
    )
}

/// A key problem, whatever the status says: LiteLLM answers a key it does not know with HTTP 400
/// `no_db_connection` when it has no key database; Gemini answers a bad key with HTTP 400.
pub(crate) fn names_auth_problem(judged: &str) -> bool {
    any(
        judged,
        &[
            "invalid api key",
            "invalid_api_key",
            "api key not valid",
            "api_key_invalid",
            "incorrect api key",
            "invalid x-api-key",
            "missing api key",
            "no api key",
            "api key expired",
            "expired api key",
            "invalid proxy server token",
            "no_db_connection",
            "authenticationerror",
            "authentication_error",
            "authentication error",
            "unauthenticated",
            "unauthorized",
        ],
    )
}

/// The endpoint says the model does not exist here: a `model_not_found` code, or the model's name
/// with a 404 or words saying it is unknown. A 400 that merely names the model (it does not
/// support a setting, say) is not this.
pub(crate) fn names_unknown_model(judged: &str, model: &str, status: u16) -> bool {
    if judged.contains("model_not_found") {
        return true;
    }
    if !mentions_model(judged, model) {
        return false;
    }
    status == 404
        || any(
            judged,
            &[
                "not found",
                "does not exist",
                "not exist",
                "no such model",
                "unknown model",
                "invalid model",
                "not a valid model",
                "model is not available",
                "not available",
                "no deployments",
                "not served",
            ],
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_found_only_as_a_whole_name() {
        assert!(mentions_model(
            "The model `gpt-5.5` does not exist",
            "gpt-5.5"
        ));
        assert!(mentions_model("model 'M' not found", "m"));
        assert!(mentions_model(
            "invalid model name passed in model=no-such-model. call",
            "no-such-model"
        ));
        assert!(mentions_model("unknown model: qwen3:8b.", "qwen3:8b"));
        assert!(mentions_model(
            "\"openai/gpt-4o\" is not a valid model id",
            "openai/gpt-4o"
        ));
        assert!(!mentions_model("Not found: the resource is missing", "m"));
        assert!(!mentions_model("model gpt-5.5-mini is busy", "gpt-5.5"));
        assert!(!mentions_model("model gpt-5.5.1 is busy", "gpt-5.5"));
        assert!(!mentions_model("model org/gpt-5.5 is busy", "gpt-5.5"));
        assert!(!mentions_model("anything", ""));
    }

    #[test]
    fn naming_the_model_is_not_enough_for_unknown() {
        assert!(!names_unknown_model(
            "model 'm' does not support reasoning_effort",
            "m",
            400
        ));
        assert!(names_unknown_model(
            "the model `m` does not exist.",
            "m",
            400
        ));
        assert!(names_unknown_model("m", "m", 404));
        assert!(names_unknown_model("nothing (model_not_found)", "x", 400));
    }
}
