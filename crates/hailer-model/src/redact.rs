//! Removing secrets from text that may be shown or logged, with the one redactor
//! ([`hailer_redact`]): the provider's key, secret header values, bearer tokens and anything
//! shaped like an OpenAI key.

pub use hailer_redact::Redactor;

use crate::settings::ProviderSettings;

/// A redactor for a provider's key and secret header values.
pub(crate) fn for_provider(settings: &ProviderSettings) -> Redactor {
    let key = settings
        .api_key
        .iter()
        .map(secrecy::ExposeSecret::expose_secret);
    let headers = settings
        .env_http_headers
        .values()
        .map(secrecy::ExposeSecret::expose_secret);
    Redactor::new(key.chain(headers))
}

/// Cuts text to at most `max_chars` characters, marking the cut with an ellipsis.
pub fn cap_chars(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars.saturating_sub(1)) {
        Some((cut, _)) if text.chars().count() > max_chars => format!("{}…", &text[..cut]),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_short_text_and_marks_cuts() {
        assert_eq!(cap_chars("héllo", 5), "héllo");
        assert_eq!(cap_chars("héllo world", 5), "héll…");
        assert_eq!(cap_chars("héllo world", 5).chars().count(), 5);
    }
}
