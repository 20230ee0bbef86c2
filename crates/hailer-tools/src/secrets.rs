//! Spotting text that looks like it holds a credential: API keys, tokens, private keys and
//! password assignments. Used to warn about context notes, which go to the model endpoint.

use std::sync::LazyLock;

use regex::Regex;

/// What kind of secret a line looks like it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SecretHint {
    /// 1-based line number.
    pub line: usize,
    /// What it looks like, for the warning.
    pub kind: &'static str,
}

static PATTERNS: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
        ("an API key", r"\bsk-[A-Za-z0-9_-]{16,}"),
        ("an AWS access key", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
        ("a GitHub token", r"\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
        ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
        ("a Google API key", r"\bAIza[0-9A-Za-z_-]{30,}"),
        ("a bearer token", r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{20,}"),
        (
            "a password or token assignment",
            r#"(?i)\b[a-z0-9_]*(api[_-]?key|secret|token|passw(or)?d|pwd|credentials?)\s*[:=]\s*['"]?[^\s'"<>]{8,}"#,
        ),
    ]
    .into_iter()
    .filter_map(|(kind, pattern)| Regex::new(pattern).ok().map(|regex| (kind, regex)))
    .collect()
});

/// The first line of `text` that looks like it holds a secret.
pub(crate) fn find_secret(text: &str) -> Option<SecretHint> {
    text.lines().enumerate().find_map(|(index, line)| {
        PATTERNS
            .iter()
            .find(|(_, regex)| regex.is_match(line))
            .map(|(kind, _)| SecretHint {
                line: index + 1,
                kind,
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spots_common_credentials() {
        let cases = [
            ("key = sk-proj-abcdefghijklmnopqrstu", "an API key"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"),
            ("AKIAABCDEFGHIJKLMNOP", "an AWS access key"),
            ("ghp_abcdefghijklmnopqrstuvwxyz012345", "a GitHub token"),
            (
                "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
                "a bearer token",
            ),
            (
                "DB_PASSWORD=hunter2hunter2",
                "a password or token assignment",
            ),
            ("api_key: 'zzzzzzzzzzzz'", "a password or token assignment"),
        ];
        for (text, kind) in cases {
            let hint = find_secret(&format!("notes\n{text}\n"));
            assert_eq!(hint, Some(SecretHint { line: 2, kind }), "{text}");
        }
    }

    #[test]
    fn ordinary_notes_pass() {
        for text in [
            "Revenue is in EUR; the fiscal year starts in April.",
            "The token column counts words.",
            "password: see the team vault",
            "sk-short",
        ] {
            assert_eq!(find_secret(text), None, "{text}");
        }
    }
}
