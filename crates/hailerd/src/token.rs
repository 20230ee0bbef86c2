//! The per-run access token and its constant-time check.

use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Bytes of randomness in a token: 256 bits.
const TOKEN_BYTES: usize = 32;

/// The daemon's access token. Its `Debug` never shows the value.
#[derive(Clone)]
pub struct AccessToken {
    value: SecretString,
    digest: [u8; 32],
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AccessToken(<redacted>)")
    }
}

impl AccessToken {
    /// A fresh random token, hex-encoded.
    pub fn generate() -> Self {
        let mut bytes = [0u8; TOKEN_BYTES];
        rand::fill(&mut bytes);
        Self::from_value(hex::encode(bytes))
    }

    /// A token with a known value (tests, and a daemon reading its own runtime file).
    pub fn from_value(value: String) -> Self {
        let digest = digest(value.as_bytes());
        Self {
            value: SecretString::from(value),
            digest,
        }
    }

    /// The token's text, for the runtime file and the log masking only.
    pub fn expose(&self) -> &str {
        self.value.expose_secret()
    }

    /// Whether `presented` is this token. Both sides are hashed first, so the comparison runs on
    /// fixed-size values and takes the same time whatever was presented.
    pub fn matches(&self, presented: &str) -> bool {
        bool::from(digest(presented.as_bytes()).ct_eq(&self.digest))
    }
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_distinct() {
        let first = AccessToken::generate();
        let second = AccessToken::generate();
        assert_eq!(first.expose().len(), 64);
        assert_ne!(first.expose(), second.expose());
    }

    #[test]
    fn only_the_exact_token_matches() {
        let token = AccessToken::generate();
        let value = token.expose().to_owned();
        assert!(token.matches(&value));
        let mut changed = value.clone().into_bytes();
        changed[10] = if changed[10] == b'a' { b'b' } else { b'a' };
        assert!(!token.matches(&String::from_utf8_lossy(&changed)));
        assert!(!token.matches(&value[..63]));
        assert!(!token.matches(&format!("{value}0")));
        assert!(!token.matches(""));
    }

    #[test]
    fn debug_hides_the_value() {
        let token = AccessToken::generate();
        assert!(!format!("{token:?}").contains(token.expose()));
    }
}
