//! Removing secrets from text before it is logged or shown.
//!
//! Patterns catch what looks like a credential (`Authorization` values, bearer tokens, `sk-` keys);
//! literal secrets (the daemon's token, values of secret-looking environment variables, keys that
//! clients send) are registered as they become known and replaced wherever they appear.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, RwLock};

use regex::Regex;

const MASK: &str = "[redacted]";
/// Literal secrets shorter than this are not masked: they would mask ordinary words.
const MIN_SECRET_LEN: usize = 6;

#[allow(clippy::expect_used)] // fixed patterns, checked by the tests
static PATTERNS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r#"(?i)(authorization"?\s*[:=]\s*"?)[^"\r\n]+"#,
            "${1}[redacted]",
        ),
        (r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+", "${1}[redacted]"),
        (r"\bsk-[A-Za-z0-9_-]{6,}", "sk-[redacted]"),
        (r"(?i)(access_token=)[^&\s#]+", "${1}[redacted]"),
        (r"(?i)(#token=)[^&\s]+", "${1}[redacted]"),
    ]
    .into_iter()
    .map(|(pattern, replacement)| (Regex::new(pattern).expect("valid pattern"), replacement))
    .collect()
});

/// A shared set of secrets to mask; clones see the same set.
#[derive(Clone, Default)]
pub struct Redactor {
    literals: Arc<RwLock<Vec<String>>>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor")
    }
}

impl Redactor {
    /// A redactor that already knows the secret-looking values of `env`.
    pub fn with_env<I, K, V>(env: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let redactor = Self::default();
        for (name, value) in env {
            if is_secret_name(name.as_ref()) {
                redactor.add_secret(value.as_ref());
            }
        }
        redactor
    }

    /// Masks `secret` from now on.
    pub fn add_secret(&self, secret: &str) {
        let secret = secret.trim();
        if secret.len() < MIN_SECRET_LEN {
            return;
        }
        let Ok(mut literals) = self.literals.write() else {
            return;
        };
        if !literals.iter().any(|known| known == secret) {
            literals.push(secret.to_owned());
            // Longest first, so a secret containing another is masked whole.
            literals.sort_by_key(|known| std::cmp::Reverse(known.len()));
        }
    }

    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Ok(literals) = self.literals.read() {
            for secret in literals.iter() {
                if out.contains(secret.as_str()) {
                    out = Cow::Owned(out.replace(secret.as_str(), MASK));
                }
            }
        }
        for (pattern, replacement) in PATTERNS.iter() {
            if let Cow::Owned(replaced) = pattern.replace_all(&out, *replacement) {
                out = Cow::Owned(replaced);
            }
        }
        out
    }
}

/// Whether an environment variable of this name holds a secret: the same rule that withholds
/// variables from the kernel ([`hailer_marimo::env_scrub::is_secret_name`]).
pub use hailer_marimo::env_scrub::is_secret_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_mask_credentials() {
        let redactor = Redactor::default();
        let cases = [
            ("Authorization: Bearer abc.def", "Authorization: [redacted]"),
            (
                "\"authorization\": \"Basic xyz\"",
                "\"authorization\": \"[redacted]\"",
            ),
            ("sent bearer 0123456789abcdef", "sent bearer [redacted]"),
            ("key sk-proj-ABCdef123456 used", "key sk-[redacted] used"),
            (
                "http://h/?access_token=abc&x=1",
                "http://h/?access_token=[redacted]&x=1",
            ),
            (
                "http://127.0.0.1:1/#token=deadbeef",
                "http://127.0.0.1:1/#token=[redacted]",
            ),
            ("nothing here", "nothing here"),
        ];
        for (input, expected) in cases {
            assert_eq!(redactor.redact(input), expected, "{input}");
        }
    }

    #[test]
    fn secret_env_values_are_masked_and_others_kept() {
        let redactor = Redactor::with_env([
            ("MY_API_KEY", "value-of-the-key"),
            ("db_password", "hunter2hunter2"),
            ("GITHUB_TOKEN", "ghp_0123456789"),
            ("CLIENT_SECRET", "s3cr3t-value"),
            ("HOME", "/home/someone"),
            ("SHORT_KEY", "abc"),
        ]);
        let line = "k=value-of-the-key p=hunter2hunter2 t=ghp_0123456789 s=s3cr3t-value h=/home/someone x=abc";
        assert_eq!(
            redactor.redact(line),
            "k=[redacted] p=[redacted] t=[redacted] s=[redacted] h=/home/someone x=abc"
        );
    }

    #[test]
    fn log_masking_and_the_kernel_scrub_share_one_name_rule() {
        let cases = [
            ("MY_API_KEY", true),
            ("PGPASSWORD", true),
            ("MYSQL_PWD", true),
            ("AZURE_CREDENTIALS", true),
            ("DB_CONNECTION_STRING", true),
            ("SERVICEAPIKEY", true),
            ("token", true),
            ("github_token", true),
            ("HOME", false),
            ("PATH", false),
            ("KEYBOARD", false),
        ];
        for (name, secret) in cases {
            assert_eq!(is_secret_name(name), secret, "{name}");
            assert_eq!(
                hailer_marimo::env_scrub::is_withheld(name, &[]),
                secret,
                "{name}"
            );
            let redactor = Redactor::with_env([(name, "a-long-secret-value")]);
            assert_eq!(
                redactor.redact("v=a-long-secret-value") == "v=[redacted]",
                secret,
                "{name}"
            );
        }
    }

    #[test]
    fn added_secrets_are_shared_between_clones() {
        let redactor = Redactor::default();
        let clone = redactor.clone();
        redactor.add_secret("per-run-token-value");
        assert_eq!(clone.redact("t=per-run-token-value"), "t=[redacted]");
    }
}
