//! Valid configurations load cleanly, with defaults and resolved paths.

use std::path::PathBuf;

use crate::common::Scratch;
use hailer_config::{
    CredentialsStore, LogLevel, Provenance, ReasoningEffort, Runtime, WireApi, check, defaults,
    hailer_toml, init, load,
};
use pretty_assertions::assert_eq;

#[test]
fn the_template_from_init_loads_with_zero_problems() {
    for runtime in [Runtime::Docker, Runtime::UnsafeLocal] {
        let scratch = Scratch::new();
        let written = init(&scratch.workspace(), false, Some(runtime)).unwrap();
        // The runtime asked for is the user's own: init records it as trusted.
        written
            .trust_the_written_config(&scratch.config_dir())
            .unwrap();
        let report = check(&scratch.inputs());
        assert!(report.is_clean(), "{runtime}: {report:#?}");
        let loaded = load(&scratch.inputs()).unwrap();
        assert_eq!(loaded.config.kernel.runtime, runtime);
        assert_eq!(loaded.sources.runtime, Provenance::File);
        assert_eq!(
            loaded.config_path,
            Some(scratch.workspace().join("hailer.toml"))
        );
    }
}

#[test]
fn every_commented_example_in_the_template_is_valid_once_uncommented() {
    let template = hailer_toml(Runtime::Docker);
    let uncommented: String = template
        .lines()
        .map(|line| {
            let rest = line.strip_prefix("# ").unwrap_or(line);
            let is_setting = rest.starts_with('[')
                || rest.split_once(" = ").is_some_and(|(key, _)| {
                    key.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                });
            if line.starts_with("# ") && is_setting {
                rest
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        uncommented.contains("\n[model_providers.acme]"),
        "{uncommented}"
    );
    let scratch = Scratch::trusted_with_config(uncommented.as_bytes());
    let loaded = load(&scratch.inputs()).unwrap_or_else(|error| panic!("{error}\n{uncommented}"));
    assert!(loaded.warnings.is_empty(), "{:#?}", loaded.warnings);
    let acme = &loaded.config.model_providers["acme"];
    assert_eq!(acme.env_key, "ACME_API_KEY");
    assert_eq!(acme.http_headers["X-Team"], "analytics");
}

#[test]
fn no_file_means_every_default() {
    let scratch = Scratch::new();
    let loaded = load(&scratch.inputs()).unwrap();
    let ws = scratch.workspace();
    let config = &loaded.config;
    assert_eq!(loaded.config_path, None);
    assert!(loaded.warnings.is_empty());
    assert_eq!(config.hailer.notebook, ws.join("notebooks/analysis.py"));
    assert_eq!(config.hailer.notebooks_dir, ws.join("notebooks"));
    assert_eq!(config.hailer.data_dir, ws.join("data"));
    assert_eq!(config.hailer.context_dir, ws.join(".config/hailer/context"));
    assert_eq!(config.hailer.max_tool_output_chars, 12_000);
    assert_eq!(config.hailer.max_context_bytes, 24_000);
    assert_eq!(config.hailer.log_level, LogLevel::Warning);
    assert_eq!(config.model.name, "gpt-5.5");
    assert_eq!(config.model.provider, "openai");
    assert_eq!(config.model.reasoning_effort, Some(ReasoningEffort::Medium));
    assert_eq!(config.model.summarize_after_tokens, 100_000);
    assert_eq!(config.model.credentials_store, CredentialsStore::Auto);
    let openai = config.active_provider().unwrap();
    assert_eq!(openai.base_url, "https://api.openai.com/v1");
    assert_eq!(openai.env_key, "OPENAI_API_KEY");
    assert!(openai.stream && openai.stream_options);
    assert_eq!(openai.max_output_tokens, None, "no limit unless one is set");
    assert!(config.web.allowed_domains.is_empty());
    assert!(!config.web.allowed_domains.matches("example.com"));
    assert_eq!(config.web.max_page_bytes, 200_000);
    assert_eq!(config.kernel.runtime, Runtime::Docker);
    assert_eq!(config.kernel.image, None);
    assert_eq!(config.kernel.memory.bytes, 4 << 30);
    assert_eq!(config.kernel.cpus, defaults::CPUS);
    assert!(!config.kernel.network);
    assert_eq!(config.daemon.session_linger_secs, 300);
    assert!(config.checks.lint && config.checks.typecheck && config.checks.format);
    assert!(
        config.hailer.audit,
        "the audit trail is on unless turned off"
    );
    assert_eq!(loaded.sources.model, Provenance::Default);
}

#[test]
fn a_full_file_is_read_into_typed_settings() {
    let scratch = Scratch::trusted_with_config(
        br#"
[hailer]
notebook = "work/nb/sales.py"
notebooks_dir = "work"
data_dir = "~/datasets/sales"
context_dir = "ctx"
max_tool_output_chars = 5000
max_context_bytes = 0x1000
log_level = "debug"

[model]
name = "local-model"
provider = "acme"
reasoning_effort = ""
summarize_after_tokens = 0
credentials_store = "file"

[model_providers.acme]
name = "Acme"
base_url = "http://127.0.0.1:8000/v1/"
env_key = "ACME_KEY"
wire_api = "chat"
stream = false
max_output_tokens = 2147483647
http_headers = { "X-Team" = "analytics" }
env_http_headers = { "X-Org" = "ACME_ORG" }
query_params = { "api-version" = "2025-01-01" }

[web]
allowed_domains = ["docs.python.org", "**.example.com", "127.0.0.1"]
max_page_bytes = 1_000

[kernel]
runtime = "unsafe-local"
image = "hailer-kernel:company"
memory = "1.5g"
cpus = 0.5
network = true
python = ".venv/bin/python"

[daemon]
session_linger_secs = 0

[checks]
typecheck = false
"#,
    );
    let loaded = load(&scratch.inputs()).unwrap();
    assert!(loaded.warnings.is_empty(), "{:#?}", loaded.warnings);
    let ws = scratch.workspace();
    let c = &loaded.config;
    assert_eq!(c.hailer.notebook, ws.join("work/nb/sales.py"));
    assert_eq!(c.hailer.notebooks_dir, ws.join("work"));
    assert_eq!(c.hailer.data_dir, scratch.home().join("datasets/sales"));
    assert_eq!(c.hailer.context_dir, ws.join("ctx"));
    assert_eq!(c.hailer.skills_dir, ws.join(".config/hailer/skills"));
    assert_eq!(c.hailer.max_context_bytes, 4096);
    assert_eq!(c.hailer.log_level, LogLevel::Debug);
    assert_eq!(c.model.reasoning_effort, None);
    assert_eq!(c.model.summarize_after_tokens, 0);
    assert_eq!(c.model.credentials_store, CredentialsStore::File);
    let acme = c.active_provider().unwrap();
    assert_eq!(acme.base_url, "http://127.0.0.1:8000/v1");
    assert_eq!(acme.wire_api, WireApi::Chat);
    assert!(!acme.stream && acme.stream_options);
    assert_eq!(acme.max_output_tokens, Some(2_147_483_647));
    assert_eq!(acme.name.as_deref(), Some("Acme"));
    assert_eq!(acme.query_params["api-version"], "2025-01-01");
    assert_eq!(
        c.provider_variables(),
        vec!["ACME_KEY".to_owned(), "ACME_ORG".to_owned()]
    );
    assert!(c.web.allowed_domains.matches("docs.python.org"));
    assert!(c.web.allowed_domains.matches("example.com"));
    assert!(c.web.allowed_domains.matches("a.b.example.com"));
    assert!(c.web.allowed_domains.matches("127.0.0.1"));
    assert!(!c.web.allowed_domains.matches("python.org"));
    assert_eq!(c.web.max_page_bytes, 1000);
    assert_eq!(c.kernel.runtime, Runtime::UnsafeLocal);
    assert_eq!(c.kernel.image.as_deref(), Some("hailer-kernel:company"));
    assert_eq!(c.kernel.memory.bytes, 3 << 29);
    assert_eq!(c.kernel.cpus, 0.5);
    assert!(c.kernel.network);
    assert_eq!(c.kernel.python, Some(ws.join(".venv/bin/python")));
    assert_eq!(c.daemon.session_linger_secs, 0);
    assert!(c.checks.lint && !c.checks.typecheck && c.checks.format);

    // It all travels over the API and comes back the same.
    let json = serde_json::to_string(&loaded).unwrap();
    let back: hailer_config::Loaded = serde_json::from_str(&json).unwrap();
    assert_eq!(back, loaded);
}

#[test]
fn notebooks_dir_alone_moves_the_default_notebook() {
    let scratch = Scratch::with_config(b"[hailer]\nnotebooks_dir = \"books\"\n");
    let loaded = load(&scratch.inputs()).unwrap();
    assert_eq!(
        loaded.config.hailer.notebook,
        scratch.workspace().join("books/analysis.py")
    );
}

#[test]
fn a_bare_python_command_is_kept_for_a_path_lookup() {
    let scratch = Scratch::trusted_with_config(
        b"[kernel]\nruntime = \"unsafe-local\"\npython = \"python3\"\n",
    );
    let loaded = load(&scratch.inputs()).unwrap();
    assert_eq!(loaded.config.kernel.python, Some(PathBuf::from("python3")));
}

#[test]
fn checks_on_disk_report_missing_notebook_and_data() {
    let scratch = Scratch::with_config(b"");
    let report = check(&scratch.inputs());
    let notebook = report
        .fatal
        .iter()
        .find(|p| p.key.as_deref() == Some("notebook"))
        .unwrap();
    assert!(
        notebook
            .message
            .starts_with("notebooks/analysis.py: the notebook"),
        "{}",
        notebook.message
    );
    assert!(notebook.hint.contains("hailer init"));
    assert!(
        report
            .warnings
            .iter()
            .any(|p| p.message.contains("data folder does not exist"))
    );
    // The same file-level configuration still loads: these checks run before a session starts.
    let loaded = load(&scratch.inputs()).unwrap();
    assert_eq!(loaded.preflight().fatal.len(), 1);
}

#[test]
fn no_hailer_toml_anywhere_up_the_tree_says_so_and_names_hailer_init() {
    let scratch = Scratch::new();
    let report = check(&scratch.inputs());
    assert_eq!(
        report.fatal.len(),
        1,
        "one problem, not a missing notebook: {report:?}"
    );
    let problem = &report.fatal[0];
    assert!(
        problem
            .message
            .contains("no hailer.toml was found here or in any folder above"),
        "{}",
        problem.message
    );
    assert!(
        !problem.message.contains("analysis.py"),
        "{}",
        problem.message
    );
    assert!(problem.hint.contains("hailer init"), "{}", problem.hint);
}

#[test]
fn unsafe_local_with_a_missing_python_fails_preflight() {
    let scratch = Scratch::trusted_with_config(
        b"[kernel]\nruntime = \"unsafe-local\"\npython = \"venv/bin/python\"\n",
    );
    init(&scratch.workspace(), false, None).unwrap();
    let report = check(&scratch.inputs());
    assert_eq!(report.fatal.len(), 1, "{report:#?}");
    assert!(
        report.fatal[0]
            .message
            .contains("the Python named by [kernel] python does not exist")
    );
}

#[test]
fn docker_refuses_a_data_folder_that_exposes_home() {
    // Even once trusted (a folder outside the workspace needs trust first).
    let scratch = Scratch::trusted_with_config(b"[hailer]\ndata_dir = \"~\"\n");
    init(&scratch.workspace(), false, None).unwrap();
    let report = check(&scratch.inputs());
    assert!(
        report
            .fatal
            .iter()
            .any(|p| p.message.contains("is your home folder")),
        "{report:#?}"
    );
    // unsafe-local mounts nothing, so the rule does not apply there.
    let scratch = Scratch::trusted_with_config(
        b"[hailer]\ndata_dir = \"~\"\n[kernel]\nruntime = \"unsafe-local\"\n",
    );
    init(&scratch.workspace(), false, None).unwrap();
    assert!(check(&scratch.inputs()).is_ok());
}
