//! Secrets kept out of what is logged or shown: the one rule for which environment variables
//! hold secrets, by their name or by credentials in a URL they hold (the kernel's environment
//! withholds them, and the redactor masks their values), and the one [`Redactor`].
//!
//! The redactor masks literal secrets registered as they become known (the daemon's token, the
//! values of secret-looking variables, a provider's key and secret header values) and patterns
//! shaped like credentials (`Authorization` values, bearer tokens, `sk-` keys, `access_token=`
//! and `#token=` in links, the password in `scheme://user:password@host`).

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, RwLock};

use regex::Regex;

/// What replaces a secret.
pub const MASK: &str = "[redacted]";

/// Literal secrets shorter than this are not masked: they would mask ordinary words.
pub const MIN_SECRET_LEN: usize = 6;

/// Names that hold secrets exactly (compared case-insensitively).
pub const EXACT_NAMES: [&str; 5] = ["PASSWORD", "SECRET", "TOKEN", "PGPASSWORD", "MYSQL_PWD"];

/// Name endings that hold secrets (compared case-insensitively).
pub const SECRET_SUFFIXES: [&str; 9] = [
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_PASSWD",
    "_PWD",
    "_CREDENTIALS",
    "_CONNECTION_STRING",
    "APIKEY",
];

/// Whether a variable of this name holds a secret, by the name alone (any case): the one rule
/// for the kernel's environment and for masking values in logs.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    EXACT_NAMES.contains(&upper.as_str())
        || SECRET_SUFFIXES.iter().any(|suffix| upper.ends_with(suffix))
}

#[allow(clippy::expect_used)] // a fixed pattern, checked by the tests
static URL_CREDENTIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#@]+)@").expect("valid pattern")
});

/// The passwords of the URLs in `value` that carry credentials (`scheme://user:password@host`).
pub fn url_passwords(value: &str) -> impl Iterator<Item = &str> {
    URL_CREDENTIALS
        .captures_iter(value)
        .filter_map(|found| found.get(1).map(|password| password.as_str()))
}

/// Whether `value` holds a URL that carries credentials (`scheme://user:password@host`, as in
/// `PIP_INDEX_URL` or `HTTPS_PROXY`): such a value is a secret whatever its variable's name.
pub fn has_url_credentials(value: &str) -> bool {
    url_passwords(value).next().is_some()
}

/// Whether the variable `name` holding `value` holds a secret: by its name
/// ([`is_secret_name`]), or by credentials in a URL it holds ([`has_url_credentials`]).
pub fn is_secret_variable(name: &str, value: &str) -> bool {
    is_secret_name(name) || has_url_credentials(value)
}

#[allow(clippy::expect_used)] // fixed patterns, each checked by the tests
static PATTERNS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // `Authorization: <value>` in headers, quoted or not, up to the closing quote.
        (
            r#"(?i)(authorization["']?\s*[:=]\s*["']?)[^"'\r\n]+"#,
            "${1}[redacted]",
        ),
        // Bearer tokens anywhere.
        (r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+", "${1}[redacted]"),
        // OpenAI-style keys: sk-..., sk-proj-..., and their masked forms.
        (r"\bsk-[A-Za-z0-9_*.-]{6,}", "sk-[redacted]"),
        (r"(?i)(access_token=)[^&\s#]+", "${1}[redacted]"),
        (r"(?i)(#token=)[^&\s]+", "${1}[redacted]"),
        // The password of credentials in a URL.
        (
            r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s/?#@:]*:)[^\s/?#@]+@",
            "${1}[redacted]@",
        ),
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
        let known = self.literals.read().map(|known| known.len()).unwrap_or(0);
        f.debug_struct("Redactor").field("secrets", &known).finish()
    }
}

impl Redactor {
    /// A redactor for these secret values.
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let redactor = Self::default();
        for secret in secrets {
            redactor.add_secret(secret.as_ref());
        }
        redactor
    }

    /// A redactor that already knows the values of `env`'s secret variables
    /// ([`is_secret_variable`]), and the passwords of the URLs among them.
    pub fn with_env<I, K, V>(env: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let redactor = Self::default();
        for (name, value) in env {
            let value = value.as_ref();
            if is_secret_variable(name.as_ref(), value) {
                redactor.add_secret(value);
                for password in url_passwords(value) {
                    redactor.add_secret(password);
                }
            }
        }
        redactor
    }

    /// Masks `secret` from now on (surrounding whitespace ignored; shorter than
    /// [`MIN_SECRET_LEN`] ignored).
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

    /// `text` with every known secret and every credential-shaped pattern masked.
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

#[cfg(test)]
mod tests;
