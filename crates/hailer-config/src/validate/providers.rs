//! `[model_providers.<id>]`: OpenAI-compatible endpoints.

use std::collections::BTreeMap;

use toml::de::DeValue;

use super::section::{At, Section, type_name};
use crate::keys::{self, PROVIDER_KEYS};
use crate::problem::Report;
use crate::schema::{Choice, OPENAI_PROVIDER, ProviderSettings, WireApi};

/// Reads every provider table under `[model_providers]`; the built-in `openai` is always there
/// (a table of that name adjusts it).
pub(crate) fn read(
    section: &Section<'_, '_>,
    report: &mut Report,
) -> BTreeMap<String, ProviderSettings> {
    let mut providers = BTreeMap::new();
    providers.insert(OPENAI_PROVIDER.to_owned(), ProviderSettings::openai());
    for (id, span) in section.keys_in_order() {
        if let Some((value, value_span)) = section.get(id)
            && !matches!(value, DeValue::Table(_))
        {
            // Not quoted: a string here is as likely to be a pasted key as a URL.
            report.push(section.fatal_unquoted(
                id,
                &value_span,
                format!(
                    "[model_providers] {id} must be a table of settings, but it is {}",
                    type_name(value)
                ),
                format!("Write [model_providers.{id}] on its own line, with base_url and env_key below it."),
            ));
            continue;
        }
        let Some(table) = section.table(
            id,
            "{ base_url = \"https://…\", env_key = \"ACME_API_KEY\" }",
            report,
        ) else {
            continue;
        };
        if id.trim().is_empty()
            || id.contains(':')
            || id.chars().any(char::is_whitespace)
            || crate::sanitize::has_control(id)
        {
            report.push(section.fatal_unquoted(
                id,
                &span,
                format!(
                    "[model_providers.\"{}\"] is not a usable provider id",
                    crate::sanitize::escape_visible(id)
                ),
                "Name providers with letters, digits, - and _ only, such as [model_providers.acme].".to_owned(),
            ));
            continue;
        }
        providers.insert(id.to_owned(), read_one(id, &table, report));
    }
    providers
}

fn read_one(id: &str, section: &Section<'_, '_>, report: &mut Report) -> ProviderSettings {
    let builtin = id == OPENAI_PROVIDER;
    let mut provider = ProviderSettings::openai();
    // The scripted demo model has no endpoint and no key to name.
    let is_demo = matches!(
        section.get("wire_api"),
        Some((DeValue::String(text), _)) if WireApi::parse(text) == Some(WireApi::Demo)
    );
    let needs_endpoint = !builtin && !is_demo;

    match section.text("base_url", "\"https://llm.example.com/v1\"", report) {
        Some(at) => match base_url_problem(at.value) {
            None => provider.base_url = at.value.trim().trim_end_matches('/').to_owned(),
            Some(BaseUrlProblem::Credentials) => report.push(section.fatal_unquoted(
                "base_url",
                &at.span,
                format!("{} has a user name or password in it (not shown)", section.label("base_url")),
                "Keep credentials out of hailer.toml: remove them from the URL and put the key in the variable named by env_key.".to_owned(),
            )),
            Some(problem) => report.push(section.fatal(
                "base_url",
                &at.span,
                format!("{} = {} {}", section.label("base_url"), section.doc.written(&at.span), problem.describe()),
                "Write the endpoint's full address, such as base_url = \"https://llm.example.com/v1\".".to_owned(),
            )),
        },
        None if needs_endpoint && section.get("base_url").is_none() => report.push(section.problem_here(
            Some("base_url"),
            true,
            format!("[model_providers.{id}] has no base_url"),
            "Add the endpoint's address, such as base_url = \"https://llm.example.com/v1\".".to_owned(),
        )),
        None => {}
    }

    match section.text("env_key", "\"ACME_API_KEY\"", report) {
        Some(at) if is_variable_name(at.value) => provider.env_key = at.value.to_owned(),
        Some(at) => report.push(section.fatal_unquoted(
            "env_key",
            &at.span,
            format!(
                "{} must be the name of an environment variable; its value is not shown in case it is the key itself",
                section.label("env_key")
            ),
            "Write the variable's name (letters, digits and _), such as env_key = \"ACME_API_KEY\", and keep the key in that variable.".to_owned(),
        )),
        None if needs_endpoint && section.get("env_key").is_none() => report.push(section.problem_here(
            Some("env_key"),
            true,
            format!("[model_providers.{id}] has no env_key"),
            "Name the environment variable that holds the API key, such as env_key = \"ACME_API_KEY\".".to_owned(),
        )),
        None => {}
    }

    if let Some(at) = section.choice::<WireApi>("wire_api", "a wire API", report) {
        provider.wire_api = at.value;
    }
    if let Some(at) = section.boolean("stream", true, report) {
        provider.stream = at.value;
    }
    if let Some(at) = section.boolean("stream_options", true, report) {
        provider.stream_options = at.value;
    }
    if let Some(at) = section.count("max_output_tokens", "4096", 1, report) {
        provider.max_output_tokens = output_limit(section, &at, report);
    }
    if let Some(at) = section.string("name", "\"Acme LLM\"", report) {
        provider.name = Some(at.value.to_owned());
    }
    provider.http_headers = string_map(section, "http_headers", MapKind::Headers, report);
    provider.env_http_headers = string_map(
        section,
        "env_http_headers",
        MapKind::HeaderVariables,
        report,
    );
    provider.query_params = string_map(section, "query_params", MapKind::QueryParams, report);
    section.warn_unknown_keys(PROVIDER_KEYS, report);
    provider
}

/// The largest `max_output_tokens`: servers read the limit into a 32-bit signed integer, and no
/// model writes anywhere near that much in one answer.
pub(crate) const MAX_OUTPUT_TOKENS_LIMIT: u32 = i32::MAX as u32;

fn output_limit(section: &Section<'_, '_>, at: &At<u64>, report: &mut Report) -> Option<u32> {
    match u32::try_from(at.value) {
        Ok(limit) if limit <= MAX_OUTPUT_TOKENS_LIMIT => Some(limit),
        _ => {
            report.push(section.fatal(
                "max_output_tokens",
                &at.span,
                format!(
                    "{} = {} is more than any endpoint accepts (at most {MAX_OUTPUT_TOKENS_LIMIT})",
                    section.label("max_output_tokens"),
                    at.value
                ),
                "Write the most tokens one answer may have, for example max_output_tokens = 4096, or \
                 delete the line to let the endpoint decide."
                    .to_owned(),
            ));
            None
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MapKind {
    Headers,
    HeaderVariables,
    QueryParams,
}

/// A table of names to strings, such as `http_headers`.
fn string_map(
    parent: &Section<'_, '_>,
    key: &str,
    kind: MapKind,
    report: &mut Report,
) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let Some(section) = parent.table(key, "{ \"X-Team\" = \"analytics\" }", report) else {
        return map;
    };
    for (name, name_span) in section.keys_in_order() {
        let Some((value, span)) = section.get(name) else {
            continue;
        };
        let label = format!("[{}] \"{name}\"", section.name);
        if name.trim().is_empty() {
            report.push(section.fatal_unquoted(
                name,
                &name_span,
                format!("[{}] has an entry with an empty name", section.name),
                "Give every entry a name, or delete it.".to_owned(),
            ));
            continue;
        }
        let secret = match kind {
            MapKind::Headers => keys::is_credential_header(name),
            MapKind::QueryParams => keys::looks_secret(name),
            MapKind::HeaderVariables => false,
        };
        if secret {
            report.push(section.warning_unquoted(
                name,
                &name_span,
                format!("{label} looks like a credential and is ignored (its value is not shown): Hailer never reads secrets from its configuration file"),
                if kind == MapKind::QueryParams {
                    "Delete it; if the endpoint also accepts the key in a header, name that header in env_http_headers with the variable that holds the key.".to_owned()
                } else {
                    "Move it to env_http_headers, which maps the header to an environment variable holding the value.".to_owned()
                },
            ));
            continue;
        }
        if kind != MapKind::QueryParams && !is_header_name(name) {
            report.push(section.fatal_unquoted(
                name,
                &name_span,
                format!("{label} is not a valid HTTP header name"),
                "Header names use letters, digits and - only, such as \"X-Team\".".to_owned(),
            ));
            continue;
        }
        let DeValue::String(text) = value else {
            report.push(section.fatal(
                name,
                &span,
                format!("{label} must be a string, but it is {}", type_name(value)),
                format!("Write it in quotes, such as \"{name}\" = \"value\"."),
            ));
            continue;
        };
        if kind == MapKind::HeaderVariables && !is_variable_name(text) {
            report.push(section.fatal_unquoted(
                name,
                &span,
                format!("{label} must name an environment variable; its value is not shown in case it is a secret"),
                format!("Write the variable's name, such as \"{name}\" = \"ACME_HEADER_VALUE\"."),
            ));
            continue;
        }
        map.insert(name.to_owned(), text.to_string());
    }
    map
}

/// What is wrong with a base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BaseUrlProblem {
    NotHttp,
    NoHost,
    Spaces,
    BadPort,
    Credentials,
}

impl BaseUrlProblem {
    fn describe(self) -> &'static str {
        match self {
            BaseUrlProblem::NotHttp => "is not an http:// or https:// address",
            BaseUrlProblem::NoHost => "has no host name",
            BaseUrlProblem::Spaces => "contains spaces",
            BaseUrlProblem::BadPort => "has a port that is not a number from 1 to 65535",
            BaseUrlProblem::Credentials => "has credentials in it",
        }
    }
}

fn base_url_problem(url: &str) -> Option<BaseUrlProblem> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Some(BaseUrlProblem::NotHttp);
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(BaseUrlProblem::Spaces);
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Some(BaseUrlProblem::Credentials);
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, _)) if !host.ends_with(']') && host.contains(':') => (authority, None),
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    if host.is_empty() || host == "[]" {
        return Some(BaseUrlProblem::NoHost);
    }
    if let Some(port) = port
        && !matches!(port.parse::<u16>(), Ok(1..))
    {
        return Some(BaseUrlProblem::BadPort);
    }
    None
}

/// Letters, digits and `_`, not starting with a digit.
pub(crate) fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 255
}

/// An HTTP token: letters, digits and a few punctuation marks.
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        let cases = [
            ("https://api.example.com/v1", None),
            ("HTTP://localhost:8080/v1/", None),
            ("http://[::1]:8000/v1", None),
            ("ftp://example.com", Some(BaseUrlProblem::NotHttp)),
            ("example.com/v1", Some(BaseUrlProblem::NotHttp)),
            ("https://", Some(BaseUrlProblem::NoHost)),
            ("https:///v1", Some(BaseUrlProblem::NoHost)),
            ("https://a b.com", Some(BaseUrlProblem::Spaces)),
            ("https://u:p@example.com", Some(BaseUrlProblem::Credentials)),
            (
                "https://example.com:99999/v1",
                Some(BaseUrlProblem::BadPort),
            ),
            ("https://example.com:/v1", Some(BaseUrlProblem::BadPort)),
        ];
        for (url, expected) in cases {
            assert_eq!(base_url_problem(url), expected, "{url}");
        }
    }

    #[test]
    fn variable_names() {
        assert!(is_variable_name("ACME_API_KEY"));
        assert!(is_variable_name("_x1"));
        assert!(!is_variable_name("1X"));
        assert!(!is_variable_name("sk-abc123"));
        assert!(!is_variable_name(""));
    }
}
