//! Removing secrets from text that may be shown or logged: the provider's key, secret header
//! values, bearer tokens and anything shaped like an OpenAI key.

use std::sync::LazyLock;

use regex::Regex;
use secrecy::ExposeSecret;

use crate::settings::ProviderSettings;

/// What replaces a secret.
pub const REDACTED: &str = "<redacted>";

/// Secrets shorter than this are not searched for literally (they would match ordinary words).
const MIN_SECRET_LEN: usize = 8;

static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // `Authorization: <value>` in quoted headers or logs.
        r#"(?i)(authorization["']?\s*[:=]\s*["']?)(?:bearer\s+|basic\s+)?[^\s"',;]+"#,
        // Bearer tokens anywhere.
        r"(?i)(bearer\s+)[A-Za-z0-9._~+/=\-]+",
        // OpenAI-style keys: sk-..., sk-proj-...
        r"()\bsk-[A-Za-z0-9_\-*.]{6,}",
    ]
    .iter()
    .filter_map(|pattern| Regex::new(pattern).ok())
    .collect()
});

/// Redacts a fixed set of secret values plus the generic key shapes.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets.len())
            .finish()
    }
}

impl Redactor {
    /// A redactor for these secret values (longest first, so a secret containing another goes
    /// whole).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .filter(|secret| secret.len() >= MIN_SECRET_LEN)
            .collect();
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Self { secrets }
    }

    /// A redactor for a provider's key and secret header values.
    pub fn for_provider(settings: &ProviderSettings) -> Self {
        let key = settings
            .api_key
            .iter()
            .map(|key| key.expose_secret().to_owned());
        let headers = settings
            .env_http_headers
            .values()
            .map(|value| value.expose_secret().to_owned());
        Self::new(key.chain(headers))
    }

    pub fn redact(&self, text: &str) -> String {
        let mut clean = text.to_owned();
        for secret in &self.secrets {
            if clean.contains(secret.as_str()) {
                clean = clean.replace(secret.as_str(), REDACTED);
            }
        }
        for pattern in PATTERNS.iter() {
            clean = pattern
                .replace_all(&clean, format!("${{1}}{REDACTED}").as_str())
                .into_owned();
        }
        clean
    }
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
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), 3);
    }

    #[test]
    fn secrets_and_key_shapes_are_redacted() {
        let redactor = Redactor::new(["super-secret-value".to_owned(), "short".to_owned()]);
        let text = "key super-secret-value, Authorization: Bearer abc.def, \
                    \"authorization\": \"xyz123\", sk-proj-ABCDEF123456 and short";
        let clean = redactor.redact(text);
        assert!(!clean.contains("super-secret-value"), "{clean}");
        assert!(!clean.contains("abc.def"), "{clean}");
        assert!(!clean.contains("xyz123"), "{clean}");
        assert!(!clean.contains("ABCDEF123456"), "{clean}");
        assert!(
            clean.contains("short"),
            "short values are not searched for: {clean}"
        );
        assert!(clean.contains(REDACTED));
    }

    #[test]
    fn cap_keeps_short_text_and_marks_cuts() {
        assert_eq!(cap_chars("héllo", 5), "héllo");
        assert_eq!(cap_chars("héllo world", 5), "héll…");
        assert_eq!(cap_chars("héllo world", 5).chars().count(), 5);
    }
}
