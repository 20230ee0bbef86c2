//! A table of broken configurations: each must give its own clear message, never a panic, and
//! never quote a value it must keep to itself.

use crate::common::Scratch;
use hailer_config::{Problem, Report, Severity, check};

use Severity::{Fatal, Warning};

struct Case {
    name: &'static str,
    toml: &'static [u8],
    severity: Severity,
    /// A piece of the expected message.
    fragment: &'static str,
    /// Text that must not appear anywhere in the report (secrets, unknown keys' values).
    hidden: Option<&'static str>,
}

const fn case(
    name: &'static str,
    toml: &'static [u8],
    severity: Severity,
    fragment: &'static str,
) -> Case {
    Case {
        name,
        toml,
        severity,
        fragment,
        hidden: None,
    }
}

const fn secret(
    name: &'static str,
    toml: &'static [u8],
    severity: Severity,
    fragment: &'static str,
    hidden: &'static str,
) -> Case {
    Case {
        name,
        toml,
        severity,
        fragment,
        hidden: Some(hidden),
    }
}

const CASES: &[Case] = &[
    // Wrong types.
    case("notebook is a number", b"[hailer]\nnotebook = 3\n", Fatal, "[hailer] notebook must be a string, but it is a whole number (3)"),
    case("max_tool_output_chars is a string", b"[hailer]\nmax_tool_output_chars = \"12000\"\n", Fatal, "must be a whole number, but it is a string (\"12000\")"),
    case("max_context_bytes is a decimal", b"[hailer]\nmax_context_bytes = 1.5\n", Fatal, "must be a whole number, but it is a decimal number (1.5)"),
    case("data_dir is a date", b"[hailer]\ndata_dir = 2024-01-01\n", Fatal, "[hailer] data_dir must be a string, but it is a date or time (2024-01-01)"),
    case("model name is a boolean", b"[model]\nname = true\n", Fatal, "[model] name must be a string, but it is a boolean (true)"),
    case("summarize_after_tokens is a list", b"[model]\nsummarize_after_tokens = [1]\n", Fatal, "must be a whole number, but it is a list ([1])"),
    case("stream is a string", b"[model_providers.openai]\nstream = \"yes\"\n", Fatal, "[model_providers.openai] stream must be true or false, but it is a string"),
    case("allowed_domains is a string", b"[web]\nallowed_domains = \"example.com\"\n", Fatal, "[web] allowed_domains must be a list, but it is a string"),
    case("allowed_domains holds a number", b"[web]\nallowed_domains = [1]\n", Fatal, "has an entry that is a whole number, not a string"),
    case("memory is a number", b"[kernel]\nmemory = 4\n", Fatal, "[kernel] memory must be a string, but it is a whole number (4)"),
    case("cpus is a string", b"[kernel]\ncpus = \"2\"\n", Fatal, "[kernel] cpus must be a number, but it is a string (\"2\")"),
    case("network is a string", b"[kernel]\nnetwork = \"false\"\n", Fatal, "[kernel] network must be true or false"),
    case("session_linger_secs is a string", b"[daemon]\nsession_linger_secs = \"5m\"\n", Fatal, "[daemon] session_linger_secs must be a whole number"),
    case("checks switch is a number", b"[checks]\nlint = 1\n", Fatal, "[checks] lint must be true or false"),
    case("kernel is not a section", b"kernel = \"docker\"\n", Fatal, "kernel must be a section ([kernel] on a line of its own), but it is a string"),
    case("http_headers is a string", b"[model_providers.openai]\nhttp_headers = \"X-Team: a\"\n", Fatal, "http_headers must be a table, but it is a string"),
    // Bad values.
    case("zero tool output", b"[hailer]\nmax_tool_output_chars = 0\n", Fatal, "[hailer] max_tool_output_chars = 0 must be greater than 0"),
    case("negative context bytes", b"[hailer]\nmax_context_bytes = -5\n", Fatal, "[hailer] max_context_bytes = -5 must be greater than 0"),
    case("negative summarize threshold", b"[model]\nsummarize_after_tokens = -1\n", Fatal, "summarize_after_tokens = -1 cannot be negative"),
    case("zero page bytes", b"[web]\nmax_page_bytes = 0\n", Fatal, "[web] max_page_bytes = 0 must be greater than 0"),
    case("negative linger", b"[daemon]\nsession_linger_secs = -1\n", Fatal, "session_linger_secs = -1 cannot be negative"),
    case("integer too large", b"[hailer]\nmax_context_bytes = 0x7fffffffffffffff1\n", Fatal, "too large"),
    case("unknown log level", b"[hailer]\nlog_level = \"LOUD\"\n", Fatal, "[hailer] log_level = \"LOUD\" is not a log level"),
    case("unknown reasoning effort", b"[model]\nreasoning_effort = \"extreme\"\n", Fatal, "reasoning_effort = \"extreme\" is not a reasoning effort"),
    case("unknown credentials store", b"[model]\ncredentials_store = \"vault\"\n", Fatal, "credentials_store = \"vault\" is not a credentials store"),
    case("unknown wire api", b"[model_providers.openai]\nwire_api = \"grpc\"\n", Fatal, "wire_api = \"grpc\" is not a wire API"),
    case("empty model name", b"[model]\nname = \"\"\n", Fatal, "[model] name is empty"),
    case("empty python", b"[kernel]\npython = \"  \"\n", Fatal, "[kernel] python is empty"),
    case("notebook not a .py file", b"[hailer]\nnotebook = \"notebooks/analysis.txt\"\n", Fatal, "does not name a .py file"),
    case("notebook outside notebooks_dir", b"[hailer]\nnotebook = \"other/a.py\"\nnotebooks_dir = \"notebooks\"\n", Fatal, "[hailer] notebook is outside notebooks_dir (\"notebooks\")"),
    // The kernel.
    case("runtime local", b"[kernel]\nruntime = \"local\"\n", Fatal, "[kernel] runtime = \"local\" uses the old name of the runtime that runs notebook code as you"),
    case("runtime unknown", b"[kernel]\nruntime = \"podman\"\n", Fatal, "[kernel] runtime = \"podman\" is not a kernel runtime"),
    case("memory with a bad unit", b"[kernel]\nmemory = \"4x\"\n", Fatal, "[kernel] memory = \"4x\" is not a memory size"),
    case("memory zero", b"[kernel]\nmemory = \"0g\"\n", Fatal, "[kernel] memory = \"0g\" must be greater than 0"),
    case("memory negative", b"[kernel]\nmemory = \"-1g\"\n", Fatal, "[kernel] memory = \"-1g\" is not a memory size"),
    case("memory below the kernel minimum", b"[kernel]\nmemory = \"1k\"\n", Fatal, "[kernel] memory = \"1k\" is less than the 256m a kernel needs to start"),
    case("memory just below the kernel minimum", b"[kernel]\nmemory = \"255m\"\n", Fatal, "is less than the 256m a kernel needs to start"),
    case("cpus zero", b"[kernel]\ncpus = 0\n", Fatal, "[kernel] cpus = 0 must be greater than 0"),
    case("cpus negative", b"[kernel]\ncpus = -1.5\n", Fatal, "[kernel] cpus = -1.5 must be greater than 0"),
    case("cpus not a number", b"[kernel]\ncpus = nan\n", Fatal, "[kernel] cpus is not a usable number"),
    case("image with spaces", b"[kernel]\nimage = \"my image\"\n", Fatal, "[kernel] image = \"my image\" is not an image name"),
    // Providers.
    case("undeclared provider", b"[model]\nprovider = \"acme\"\n", Fatal, "[model] provider = \"acme\" names the provider \"acme\", which is not declared"),
    case("custom provider without base_url", b"[model_providers.acme]\nenv_key = \"ACME_KEY\"\n", Fatal, "[model_providers.acme] has no base_url"),
    case("custom provider without env_key", b"[model_providers.acme]\nbase_url = \"https://a.example/v1\"\n", Fatal, "[model_providers.acme] has no env_key"),
    case("base_url not http", b"[model_providers.acme]\nbase_url = \"ftp://a.example\"\nenv_key = \"K\"\n", Fatal, "base_url = \"ftp://a.example\" is not an http:// or https:// address"),
    case("base_url without host", b"[model_providers.acme]\nbase_url = \"https:///v1\"\nenv_key = \"K\"\n", Fatal, "has no host name"),
    secret("base_url with credentials", b"[model_providers.acme]\nbase_url = \"https://me:hunter2pass@a.example\"\nenv_key = \"K\"\n", Fatal, "has a user name or password in it (not shown)", "hunter2pass"),
    secret("env_key holding the key itself", b"[model_providers.acme]\nbase_url = \"https://a.example\"\nenv_key = \"sk-proj-abcdef123456\"\n", Fatal, "env_key must be the name of an environment variable", "sk-proj-abcdef123456"),
    secret("secret key in a provider", b"[model_providers.openai]\napi_key = \"sk-live-0123456789\"\n", Warning, "[model_providers.openai] api_key looks like a secret and is ignored", "sk-live-0123456789"),
    secret("bearer token in a provider", b"[model_providers.openai]\nbearer_token = \"tok-987654321\"\n", Warning, "bearer_token looks like a secret and is ignored", "tok-987654321"),
    secret("authorization header", b"[model_providers.openai]\nhttp_headers = { Authorization = \"Bearer sk-abc999\" }\n", Warning, "\"Authorization\" looks like a credential and is ignored", "sk-abc999"),
    case("empty header name", b"[model_providers.openai]\nhttp_headers = { \"\" = \"x\" }\n", Fatal, "has an entry with an empty name"),
    case("header name with a space", b"[model_providers.openai]\nhttp_headers = { \"X Team\" = \"x\" }\n", Fatal, "\"X Team\" is not a valid HTTP header name"),
    secret("env header value not a variable", b"[model_providers.openai]\nenv_http_headers = { \"X-Org\" = \"org 123 secret\" }\n", Fatal, "must name an environment variable", "org 123 secret"),
    case("header value not a string", b"[model_providers.openai]\nhttp_headers = { \"X-Team\" = 5 }\n", Fatal, "\"X-Team\" must be a string, but it is a whole number"),
    case("max_output_tokens zero", b"[model_providers.openai]\nmax_output_tokens = 0\n", Fatal, "[model_providers.openai] max_output_tokens = 0 must be greater than 0"),
    case("max_output_tokens negative", b"[model_providers.openai]\nmax_output_tokens = -4096\n", Fatal, "[model_providers.openai] max_output_tokens = -4096 must be greater than 0"),
    case("max_output_tokens a string", b"[model_providers.openai]\nmax_output_tokens = \"4k\"\n", Fatal, "[model_providers.openai] max_output_tokens must be a whole number, but it is a string (\"4k\")"),
    case("max_output_tokens a decimal", b"[model_providers.openai]\nmax_output_tokens = 4096.5\n", Fatal, "max_output_tokens must be a whole number, but it is a decimal number (4096.5)"),
    case("max_output_tokens a list", b"[model_providers.openai]\nmax_output_tokens = [4096]\n", Fatal, "max_output_tokens must be a whole number, but it is a list"),
    case("max_output_tokens past 32 bits", b"[model_providers.openai]\nmax_output_tokens = 2147483648\n", Fatal, "[model_providers.openai] max_output_tokens = 2147483648 is more than any endpoint accepts (at most 2147483647)"),
    case("max_output_tokens past 64 bits", b"[model_providers.openai]\nmax_output_tokens = 99999999999999999999\n", Fatal, "[model_providers.openai] max_output_tokens is too large"),
    case("max_output_tokens of a custom provider", b"[model_providers.acme]\nbase_url = \"https://a.example/v1\"\nenv_key = \"K\"\nmax_output_tokens = false\n", Fatal, "[model_providers.acme] max_output_tokens must be a whole number, but it is a boolean"),
    case("provider id with a colon", b"[model_providers.\"a:b\"]\nbase_url = \"https://a.example\"\nenv_key = \"K\"\n", Fatal, "is not a usable provider id"),
    secret("provider is not a table", b"[model_providers]\nacme = \"sk-pasted-key-42\"\n", Fatal, "[model_providers] acme must be a table of settings, but it is a string", "sk-pasted-key-42"),
    secret("plain key in a provider", b"[model_providers.openai]\nkey = \"k-1234567\"\n", Warning, "[model_providers.openai] key looks like a secret", "k-1234567"),
    secret("token in a provider", b"[model_providers.openai]\ntoken = \"t-1234567\"\n", Warning, "[model_providers.openai] token looks like a secret", "t-1234567"),
    secret("secret in a provider", b"[model_providers.openai]\nsecret = \"s-1234567\"\n", Warning, "[model_providers.openai] secret looks like a secret", "s-1234567"),
    secret("secret query parameter", b"[model_providers.openai]\nquery_params = { key = \"AIza-777\" }\n", Warning, "\"key\" looks like a credential and is ignored", "AIza-777"),
    case("array of kernel tables", b"[[kernel]]\nruntime = \"docker\"\n", Fatal, "kernel must be a section ([kernel] on a line of its own), but it is a list"),
    // Domains.
    case("domain star", b"[web]\nallowed_domains = [\"*\"]\n", Fatal, "entry \"*\" would allow every site on the internet"),
    case("domain double star", b"[web]\nallowed_domains = [\"**\"]\n", Fatal, "entry \"**\" would allow every site"),
    case("domain is a URL", b"[web]\nallowed_domains = [\"https://example.com/docs\"]\n", Fatal, "is a URL, not a host name"),
    case("domain with a wildcard inside", b"[web]\nallowed_domains = [\"a.*.example.com\"]\n", Fatal, "uses a wildcard other than a leading"),
    case("domain wildcard on a top-level domain", b"[web]\nallowed_domains = [\"*.com\"]\n", Fatal, "wildcard in front of a whole top-level domain"),
    case("domain with a port", b"[web]\nallowed_domains = [\"example.com:443\"]\n", Fatal, "has a port, a path or a space"),
    case("domain wildcard on an address", b"[web]\nallowed_domains = [\"*.0.0.10\"]\n", Fatal, "wildcard in front of an IP address"),
    case("malformed domain", b"[web]\nallowed_domains = [\"exa..mple.com\"]\n", Fatal, "is not a valid host name"),
    // Unknown, retired and misplaced keys.
    secret("runtime under [hailer]", b"[hailer]\nruntime = \"unsafe-local\"\n", Warning, "[hailer] runtime is ignored here: it belongs under [kernel]", "unsafe-local"),
    case("memory under [model]", b"[model]\nmemory = \"8g\"\n", Warning, "[model] memory is ignored here: it belongs under [kernel]"),
    case("runtime at the top level", b"runtime = \"docker\"\n", Warning, "top-level key runtime is ignored here: it belongs under [kernel]"),
    case("allowed_domains under [hailer]", b"[hailer]\nallowed_domains = []\n", Warning, "it belongs under [web]"),
    secret("unknown key", b"[kernel]\ncolour = \"blue-value-7\"\n", Warning, "[kernel] colour is not a known setting and is ignored", "blue-value-7"),
    case("typo of a key", b"[kernel]\nruntim = \"docker\"\n", Warning, "Did you mean runtime?"),
    secret("unknown section", b"[kernal]\nruntime = \"unsafe-local-9\"\n", Warning, "[kernal] is not a known section and is ignored", "unsafe-local-9"),
    secret("retired key", b"[hailer]\nmarimo_url = \"http://127.0.0.1:2718/?access_token=abc777\"\n", Warning, "[hailer] marimo_url is no longer used and is ignored", "abc777"),
    case("retired pass_env", b"[kernel]\npass_env = [\"A\"]\n", Warning, "[kernel] pass_env is no longer used"),
    case("retired parallel_tool_calls", b"[model]\nparallel_tool_calls = true\n", Warning, "parallel_tool_calls is no longer used"),
    // Not TOML at all.
    case("unclosed section header", b"[hailer]\nnotebook = \"a.py\"\n[kernel\n", Fatal, "hailer.toml, line 3: this is not valid TOML"),
    case("duplicate key", b"[model]\nname = \"a\"\nname = \"b\"\n", Fatal, "hailer.toml, line 3: this is not valid TOML"),
    case("unquoted string", b"[model]\nname = gpt\n", Fatal, "hailer.toml, line 2: this is not valid TOML"),
    case("non-UTF-8 bytes", b"[model]\nname = \"caf\xe9\"\n", Fatal, "hailer.toml, line 2: the file is not UTF-8 text: byte 19 (0xe9)"),
];

fn report_for(toml: &[u8]) -> Report {
    let scratch = Scratch::with_config(toml);
    check(&scratch.inputs())
}

fn config_problems(report: &Report) -> Vec<&Problem> {
    // Checks on disk (missing notebook, data folder) are not what these cases are about.
    report
        .all()
        .filter(|problem| problem.area == hailer_config::Area::Config)
        .collect()
}

#[test]
fn every_bad_configuration_gets_its_message() {
    assert!(CASES.len() >= 45, "the table must keep at least 45 cases");
    let mut failures = Vec::new();
    for case in CASES {
        let report = report_for(case.toml);
        let problems = config_problems(&report);
        let found = problems
            .iter()
            .any(|p| p.severity == case.severity && p.to_string().contains(case.fragment));
        if !found {
            failures.push(format!(
                "{}: expected {:?} containing {:?}, got:\n{}",
                case.name,
                case.severity,
                case.fragment,
                problems
                    .iter()
                    .map(|p| format!("  {:?} {}", p.severity, p.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        if let Some(hidden) = case.hidden {
            let json = serde_json::to_string(&report).unwrap();
            if json.contains(hidden) {
                failures.push(format!(
                    "{}: the report quotes {hidden:?}: {json}",
                    case.name
                ));
            }
        }
        for problem in &problems {
            if problem.hint.trim().is_empty() {
                failures.push(format!(
                    "{}: no fix offered for {}",
                    case.name, problem.message
                ));
            }
            if !problem.message.starts_with("hailer.toml") {
                failures.push(format!(
                    "{}: the message does not name the file: {}",
                    case.name, problem.message
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn each_fatal_case_stops_load_with_the_same_message() {
    for case in CASES.iter().filter(|case| case.severity == Fatal) {
        let scratch = Scratch::with_config(case.toml);
        let error = hailer_config::load(&scratch.inputs()).expect_err(case.name);
        assert!(
            error.to_string().contains(case.fragment),
            "{}: {error}",
            case.name
        );
    }
}

#[test]
fn warnings_alone_still_load() {
    for case in CASES.iter().filter(|case| case.severity == Warning) {
        let scratch = Scratch::with_config(case.toml);
        let loaded = hailer_config::load(&scratch.inputs())
            .unwrap_or_else(|error| panic!("{}: {error}", case.name));
        assert!(
            loaded
                .warnings
                .iter()
                .any(|p| p.to_string().contains(case.fragment)),
            "{}",
            case.name
        );
    }
}

#[test]
fn misplaced_runtime_leaves_docker_in_charge() {
    let scratch = Scratch::with_config(
        b"[hailer]\nruntime = \"unsafe-local\"\n[model]\nruntime = \"unsafe-local\"\n",
    );
    let loaded = hailer_config::load(&scratch.inputs()).unwrap();
    assert_eq!(loaded.config.kernel.runtime, hailer_config::Runtime::Docker);
    assert_eq!(loaded.warnings.len(), 2, "{:#?}", loaded.warnings);
}

#[test]
fn values_as_written_are_recorded_for_known_keys_only() {
    let report = report_for(b"[kernel]\nmemory = \"4x\"\nsecret_thing = \"zzz\"\n");
    let memory = report
        .fatal
        .iter()
        .find(|p| p.key.as_deref() == Some("memory"))
        .unwrap();
    assert_eq!(memory.value.as_deref(), Some("\"4x\""));
    assert_eq!(memory.section.as_deref(), Some("kernel"));
    let unknown = report
        .warnings
        .iter()
        .find(|p| p.key.as_deref() == Some("secret_thing"))
        .unwrap();
    assert_eq!(unknown.value, None);
    // Problems travel over the API unchanged.
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(serde_json::from_str::<Report>(&json).unwrap(), report);
    assert!(json.contains("\"severity\":\"fatal\""), "{json}");
}

#[test]
fn all_problems_are_collected_at_once_in_file_order() {
    let report = report_for(
        b"[hailer]\nmax_context_bytes = 0\n[model]\nname = \"\"\n[kernel]\nruntime = \"local\"\nmemory = \"x\"\ncpus = -1\n",
    );
    let lines: Vec<usize> = report
        .fatal
        .iter()
        .filter_map(|p| match &p.origin {
            hailer_config::Origin::File { line, .. } => *line,
            _ => None,
        })
        .collect();
    assert_eq!(lines, vec![2, 4, 6, 7, 8]);
}

#[test]
fn full_message_list_snapshot() {
    let mut text = String::new();
    for case in CASES {
        let report = report_for(case.toml);
        text.push_str(&format!("## {}\n", case.name));
        for problem in config_problems(&report) {
            let tag = if problem.is_fatal() { "FAIL" } else { "warn" };
            text.push_str(&format!("{tag} {problem}\n"));
        }
        text.push('\n');
    }
    insta::assert_snapshot!(text);
}
