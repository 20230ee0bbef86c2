//! The typed configuration: what `hailer.toml`, the environment and the flags settle on.
//!
//! Paths are absolute: relative paths in the file are resolved against the workspace.

mod choices;
mod memory;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use choices::{Choice, CredentialsStore, LogLevel, ReasoningEffort, Runtime, WireApi};
pub use memory::{KERNEL_MINIMUM_BYTES, MemoryError, MemoryLimit};

use crate::domains::AllowedDomains;

/// The id of the provider that is always known.
pub(crate) const OPENAI_PROVIDER: &str = "openai";
/// The built-in provider's endpoint.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The built-in provider's key variable.
pub(crate) const OPENAI_ENV_KEY: &str = "OPENAI_API_KEY";

/// Defaults, in one place.
pub mod defaults {
    /// `[hailer] notebook`, relative to the workspace: the notebook a session opens first.
    pub const NOTEBOOK: &str = "notebooks/analysis.py";
    /// The notebook's file name inside `notebooks_dir` when only that folder is set.
    pub const NOTEBOOK_FILE_NAME: &str = "analysis.py";
    /// `[hailer] data_dir`, relative to the workspace.
    pub const DATA_DIR: &str = "data";
    /// `[hailer] context_dir`, relative to the workspace.
    pub const CONTEXT_DIR: &str = ".config/hailer/context";
    /// `[hailer] skills_dir`, relative to the workspace.
    pub const SKILLS_DIR: &str = ".config/hailer/skills";
    /// `[hailer] prompts_dir`, relative to the workspace.
    pub const PROMPTS_DIR: &str = ".config/hailer/prompts";
    /// `[hailer] max_tool_output_chars`, in characters.
    pub const MAX_TOOL_OUTPUT_CHARS: u64 = 12_000;
    /// `[hailer] max_context_bytes`, in bytes.
    pub const MAX_CONTEXT_BYTES: u64 = 24_000;
    /// `[model] name`: the model asked when neither the file, `HAILER_MODEL` nor `--model`
    /// names one.
    pub const MODEL_NAME: &str = "gpt-5.5";
    /// `[model] summarize_after_tokens`, in estimated tokens.
    pub const SUMMARIZE_AFTER_TOKENS: u64 = 100_000;
    /// `[web] max_page_bytes`, in bytes.
    pub const MAX_PAGE_BYTES: u64 = 200_000;
    /// `[kernel] cpus`, in CPUs.
    pub const CPUS: f64 = 2.0;
    /// `[kernel] exec_timeout_secs`: how long one run of code may take, in seconds.
    pub const EXEC_TIMEOUT_SECS: u64 = 300;
    /// The longest `[kernel] exec_timeout_secs` (and `--exec-timeout`) allowed: one day.
    pub const MAX_EXEC_TIMEOUT_SECS: u64 = 86_400;
    /// `[daemon] session_linger_secs`, in seconds.
    pub const SESSION_LINGER_SECS: u64 = 300;
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// `[hailer]`: the workspace's notebook, folders, limits, log level and audit switch.
    pub hailer: HailerSettings,
    /// `[model]`: the model, its provider and how it is asked.
    pub model: ModelSettings,
    /// Every usable provider by id, the built-in `openai` included.
    pub model_providers: BTreeMap<String, ProviderSettings>,
    /// `[web]`: what the page-fetching tool may read.
    pub web: WebSettings,
    /// `[kernel]`: where notebook code runs and with which limits.
    pub kernel: KernelSettings,
    /// `[daemon]`: how long hailerd keeps sessions.
    pub daemon: DaemonSettings,
    /// `[checks]`: the ruff and ty checks on the cells the agent changes.
    pub checks: ChecksSettings,
}

/// `[hailer]`: the workspace's files and limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HailerSettings {
    /// The notebook a session opens first.
    pub notebook: PathBuf,
    /// The folder of notebooks (the notebook's folder unless set).
    pub notebooks_dir: PathBuf,
    /// The data folder (read-only in a docker kernel).
    pub data_dir: PathBuf,
    /// The folder of context notes: every `*.md` in it goes to the model with each question,
    /// in name order (default `.config/hailer/context`).
    pub context_dir: PathBuf,
    /// The folder of skills, one `<folder>/SKILL.md` each, which the agent loads when it needs
    /// them (default `.config/hailer/skills`).
    pub skills_dir: PathBuf,
    /// The folder of ready-made prompts, one `<name>.md` each, with `{{args}}` replaced when
    /// sent (default `.config/hailer/prompts`).
    pub prompts_dir: PathBuf,
    /// Tool results are cut to this many characters (default 12,000; at least 1).
    pub max_tool_output_chars: u64,
    /// The context notes sent to the model are capped at this many bytes in all (default
    /// 24,000; at least 1); a note that does not fit, and every note after it, is left out.
    pub max_context_bytes: u64,
    /// How much the client, and a daemon it starts, log (default `WARNING`).
    pub log_level: LogLevel,
    /// Keep the audit trail in `.hailer/audit.jsonl` (on unless set to false).
    pub audit: bool,
}

/// `[model]`: which model answers, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSettings {
    /// The model name sent to the endpoint (default `gpt-5.5`), trimmed of spaces.
    pub name: String,
    /// The id of a provider in [`Config::model_providers`].
    pub provider: String,
    /// How hard the model reasons (default `medium`); `None` sends no reasoning setting
    /// (written as `""`). Only the built-in provider gets the default: see
    /// [`ModelSettings::reasoning_effort_for`].
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Whether the file set `reasoning_effort` itself (to a value or to `""`).
    #[serde(default)]
    pub reasoning_effort_written: bool,
    /// Older turns are summarised once the conversation passes this many estimated tokens
    /// (default 100,000); 0 turns summarising off.
    pub summarize_after_tokens: u64,
    /// Where `hailer login` keeps API keys and where a session looks for them (default
    /// `auto`).
    pub credentials_store: CredentialsStore,
}

impl ModelSettings {
    /// The reasoning effort to send to `provider`: what the file says, or, when it says
    /// nothing, the default for the built-in provider and none for any other, since many
    /// OpenAI-compatible servers refuse a setting they do not know.
    pub fn reasoning_effort_for(&self, provider: &str) -> Option<ReasoningEffort> {
        if self.reasoning_effort_written || provider == OPENAI_PROVIDER {
            self.reasoning_effort
        } else {
            None
        }
    }
}

/// `[model_providers.<id>]`: an OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSettings {
    /// The endpoint's address, `http://` or `https://`, without a trailing `/` (the built-in
    /// provider's is `https://api.openai.com/v1`). It never holds a user name or password.
    pub base_url: String,
    /// The environment variable holding the API key (never the key itself).
    pub env_key: String,
    /// Which API the endpoint speaks (default `responses`).
    pub wire_api: WireApi,
    /// Whether replies are asked for as a stream of events rather than one response (default
    /// on).
    pub stream: bool,
    /// Asks for usage in streamed Chat Completions replies (`stream_options.include_usage`);
    /// only sent when `stream` is on too (default on).
    pub stream_options: bool,
    /// The most tokens one answer may have (`max_output_tokens` on the Responses wire,
    /// `max_tokens` on Chat Completions); `None` sends no limit.
    pub max_output_tokens: Option<u32>,
    /// A display name; `None` when the table sets none.
    pub name: Option<String>,
    /// Extra headers sent with every request, name to value. Headers that look like
    /// credentials are dropped with a warning when the file is read.
    pub http_headers: BTreeMap<String, String>,
    /// Header name to environment variable; sent only when the variable is set and not empty.
    pub env_http_headers: BTreeMap<String, String>,
    /// Added to the URL of every request, name to value. Names that look secret are dropped
    /// with a warning when the file is read.
    pub query_params: BTreeMap<String, String>,
}

/// `[web]`: what the page-fetching tool may reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSettings {
    /// The hosts `fetch_page` may read from; empty (the default) refuses every page.
    pub allowed_domains: AllowedDomains,
    /// The most bytes read of one page (default 200,000; at least 1).
    pub max_page_bytes: u64,
}

/// `[kernel]`: where and how notebook code runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSettings {
    /// Where notebook code runs (default `docker`). `unsafe-local` written in a workspace's
    /// file applies only once the workspace is trusted.
    pub runtime: Runtime,
    /// The docker kernel's image; `None` (or `""` in the file) means the published image of
    /// this Hailer's kernel contract.
    pub image: Option<String>,
    /// The base image `hailer kernel build` starts from; `None` means the official Python
    /// image the recipe names.
    pub base_image: Option<String>,
    /// The docker kernel's memory limit, with no swap on top (default `4g`; at least `256m`).
    pub memory: MemoryLimit,
    /// How many CPUs a docker kernel may use; fractions are allowed (default 2; more than 0).
    pub cpus: f64,
    /// Lets a docker kernel reach the internet, this machine and other containers (default
    /// off).
    pub network: bool,
    /// The Python for unsafe-local: a path (resolved against the workspace) or a command name
    /// looked up on PATH. `None` lets the daemon pick its managed Python. Applies only once
    /// the workspace is trusted.
    pub python: Option<PathBuf>,
    /// How long one run of the agent's code (and of `hailer exec` without `--timeout`) may
    /// take, in seconds (default 300, at most 86400); `--exec-timeout` and
    /// `HAILER_EXEC_TIMEOUT_SECS` override it.
    pub exec_timeout_secs: u64,
}

/// `[daemon]`: how hailerd looks after sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonSettings {
    /// How long a session stays alive after its last client left, in seconds (default 300;
    /// 0 stops it within about a second, at the daemon's next idle check).
    pub session_linger_secs: u64,
}

/// `[checks]`: the static checks run on the cells the agent changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChecksSettings {
    /// Runs ruff's checks on the cells the agent changes (default on).
    pub lint: bool,
    /// Runs ty's type checks on the cells the agent changes (default on).
    pub typecheck: bool,
    /// Formats those cells with ruff before they run (default on).
    pub format: bool,
    /// The ruff program: a path (resolved against the workspace) or a command name. `None`
    /// looks next to the kernel's Python (unsafe-local), then on PATH. A value from a
    /// workspace's file applies only once the workspace is trusted.
    pub ruff: Option<PathBuf>,
    /// The ty program, found and trusted the same way as `ruff`.
    pub ty: Option<PathBuf>,
}

impl ProviderSettings {
    /// The built-in `openai` provider.
    pub fn openai() -> Self {
        Self {
            base_url: OPENAI_BASE_URL.to_owned(),
            env_key: OPENAI_ENV_KEY.to_owned(),
            wire_api: WireApi::Responses,
            stream: true,
            stream_options: true,
            max_output_tokens: None,
            name: None,
            http_headers: BTreeMap::new(),
            env_http_headers: BTreeMap::new(),
            query_params: BTreeMap::new(),
        }
    }
}

impl Config {
    /// The `Kernel:` line users see: the runtime and what it lets notebook code do. `contract`
    /// is the kernel contract of this build.
    pub fn kernel_line(&self, contract: &str) -> String {
        kernel_line(self.kernel.runtime, self.kernel.network, contract)
    }

    /// The provider [`ModelSettings::provider`] names. Loading guarantees it exists.
    pub fn active_provider(&self) -> Option<&ProviderSettings> {
        self.model_providers.get(&self.model.provider)
    }

    /// Environment variables the active provider reads: its key and its header variables.
    /// The client sends their values to the daemon with the requests that need them.
    pub fn provider_variables(&self) -> Vec<String> {
        let mut names = Vec::new();
        if let Some(provider) = self.active_provider() {
            names.push(provider.env_key.clone());
            names.extend(provider.env_http_headers.values().cloned());
        }
        names.sort();
        names.dedup();
        names
    }
}

/// The `Kernel:` line of a kernel of `runtime`, its network on or off (docker only), for the
/// kernel contract `contract`.
pub fn kernel_line(runtime: Runtime, network: bool, contract: &str) -> String {
    match runtime {
        Runtime::UnsafeLocal => "unsafe-local (runs as you; not isolated)".to_owned(),
        // macOS's sandbox sets no limits; Linux's sets rlimits, each process's own.
        Runtime::Sandbox if cfg!(target_os = "macos") => {
            "sandbox (your Python in the system's sandbox; no network; data read-only; \
             only the notebooks writable; no memory or process limit)"
                .to_owned()
        }
        Runtime::Sandbox => {
            "sandbox (your Python in the system's sandbox; no network; data read-only; \
             only the notebooks writable; memory and processes limited per process, not in \
             total)"
                .to_owned()
        }
        Runtime::Docker => {
            let network = if network {
                "network on: the internet and this machine"
            } else {
                "no network"
            };
            format!("docker (hailer-kernel {contract}; {network}; data read-only)")
        }
    }
}
