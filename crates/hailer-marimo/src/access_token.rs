//! The random access token a marimo server demands, and masking it out of text we show.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use secrecy::{ExposeSecret, SecretString};

/// What replaces the token in any text shown to a person.
pub(crate) const TOKEN_MASK: &str = "<token>";

/// A fresh token: 32 random bytes, URL-safe base64 without padding (43 characters).
pub fn generate_token() -> SecretString {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    SecretString::from(URL_SAFE_NO_PAD.encode(bytes))
}

/// A session id for a headless marimo session (not a secret, only unique).
pub(crate) fn new_session_id() -> String {
    let mut bytes = [0u8; 9];
    rand::fill(&mut bytes);
    format!("s_hailer_{}", hex::encode(bytes))
}

/// `text` with every occurrence of the token replaced by `TOKEN_MASK`.
pub fn mask_token(text: &str, token: &SecretString) -> String {
    let secret = token.expose_secret();
    if secret.is_empty() {
        return text.to_owned();
    }
    text.replace(secret, TOKEN_MASK)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn tokens_are_43_url_safe_chars_and_differ() {
        let a = generate_token();
        let b = generate_token();
        assert_eq!(a.expose_secret().len(), 43);
        assert!(
            a.expose_secret()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_ne!(a.expose_secret(), b.expose_secret());
    }

    #[test]
    fn masking_replaces_every_occurrence() {
        let token = SecretString::from("abc123");
        let text = "URL: http://localhost:2718?access_token=abc123\nagain abc123";
        assert_eq!(
            mask_token(text, &token),
            "URL: http://localhost:2718?access_token=<token>\nagain <token>"
        );
    }

    #[test]
    fn debug_output_hides_the_token() {
        let token = generate_token();
        let shown = format!("{token:?}");
        assert!(!shown.contains(token.expose_secret()));
    }
}
