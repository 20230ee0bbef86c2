//! The names in `hailer.toml`: every section and key the loader knows, and the retired ones.

/// `[hailer]` keys.
pub(crate) const HAILER_KEYS: &[&str] = &[
    "notebook",
    "notebooks_dir",
    "data_dir",
    "context_dir",
    "skills_dir",
    "prompts_dir",
    "max_tool_output_chars",
    "max_context_bytes",
    "log_level",
    "audit",
];
/// `[model]` keys.
pub(crate) const MODEL_KEYS: &[&str] = &[
    "name",
    "provider",
    "reasoning_effort",
    "summarize_after_tokens",
    "credentials_store",
];
/// `[model_providers.<id>]` keys.
pub(crate) const PROVIDER_KEYS: &[&str] = &[
    "base_url",
    "env_key",
    "wire_api",
    "stream",
    "stream_options",
    "max_output_tokens",
    "name",
    "http_headers",
    "env_http_headers",
    "query_params",
];
/// `[web]` keys.
pub(crate) const WEB_KEYS: &[&str] = &["allowed_domains", "max_page_bytes"];
/// `[kernel]` keys.
pub(crate) const KERNEL_KEYS: &[&str] = &[
    "runtime",
    "image",
    "base_image",
    "memory",
    "cpus",
    "network",
    "python",
    "exec_timeout_secs",
];
/// `[daemon]` keys.
pub(crate) const DAEMON_KEYS: &[&str] = &["session_linger_secs"];
/// `[checks]` keys.
pub(crate) const CHECKS_KEYS: &[&str] = &["lint", "typecheck", "format", "ruff", "ty"];

/// Every section with its keys. `model_providers` holds one table per provider id.
pub const SCHEMA: &[(&str, &[&str])] = &[
    ("hailer", HAILER_KEYS),
    ("model", MODEL_KEYS),
    ("model_providers", PROVIDER_KEYS),
    ("web", WEB_KEYS),
    ("kernel", KERNEL_KEYS),
    ("daemon", DAEMON_KEYS),
    ("checks", CHECKS_KEYS),
];

/// Keys earlier versions read and that no longer do anything, wherever they appear.
pub(crate) const RETIRED_KEYS: &[&str] = &[
    "marimo_url",
    "marimo_token",
    "pass_env",
    "codex_home",
    "allow_shell_network",
    "merge_messages",
    "parallel_tool_calls",
    "requires_openai_auth",
];

/// Key names that look like they hold a secret (compared in lower case).
const SECRET_NAMES: &[&str] = &[
    "api_key",
    "apikey",
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "bearer",
    "bearer_token",
    "access_token",
    "auth_token",
    "authorization",
    "client_secret",
    "credentials",
];
const SECRET_SUFFIXES: &[&str] = &[
    "_key",
    "_token",
    "_secret",
    "_password",
    "_passwd",
    "_credentials",
    "apikey",
];

/// Whether a key name looks like it holds a secret.
pub(crate) fn looks_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase().replace('-', "_");
    SECRET_NAMES.contains(&key.as_str()) || SECRET_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// Header names whose value is a credential; they belong in `env_http_headers`.
pub(crate) fn is_credential_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || looks_secret(&name)
}

/// The one section a key belongs to, when only one section has it.
pub(crate) fn home_section(key: &str) -> Option<&'static str> {
    let mut homes = SCHEMA
        .iter()
        .filter(|(_, keys)| keys.contains(&key))
        .map(|(section, _)| *section);
    match (homes.next(), homes.next()) {
        (Some(section), None) => Some(section),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_names() {
        assert!(looks_secret("api_key"));
        assert!(looks_secret("Bearer_Token"));
        assert!(looks_secret("x-api-key"));
        assert!(!looks_secret("base_url"));
        assert_eq!(home_section("runtime"), Some("kernel"));
        assert_eq!(home_section("allowed_domains"), Some("web"));
        assert_eq!(home_section("name"), None);
        assert!(is_credential_header("Authorization"));
        assert!(!is_credential_header("OpenAI-Organization"));
    }
}
