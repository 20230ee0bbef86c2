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
pub const OPENAI_PROVIDER: &str = "openai";
/// The built-in provider's endpoint.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// The built-in provider's key variable.
pub const OPENAI_ENV_KEY: &str = "OPENAI_API_KEY";

/// Defaults, in one place.
pub mod defaults {
    pub const NOTEBOOK: &str = "notebooks/analysis.py";
    pub const NOTEBOOK_FILE_NAME: &str = "analysis.py";
    pub const DATA_DIR: &str = "data";
    pub const CONTEXT_DIR: &str = ".config/hailer/context";
    pub const SKILLS_DIR: &str = ".config/hailer/skills";
    pub const PROMPTS_DIR: &str = ".config/hailer/prompts";
    pub const MAX_TOOL_OUTPUT_CHARS: u64 = 12_000;
    pub const MAX_CONTEXT_BYTES: u64 = 24_000;
    pub const MODEL_NAME: &str = "gpt-5.5";
    pub const SUMMARIZE_AFTER_TOKENS: u64 = 100_000;
    pub const MAX_PAGE_BYTES: u64 = 200_000;
    pub const CPUS: f64 = 2.0;
    pub const SESSION_LINGER_SECS: u64 = 300;
}

/// The whole configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub hailer: HailerSettings,
    pub model: ModelSettings,
    /// Every usable provider by id, the built-in `openai` included.
    pub model_providers: BTreeMap<String, ProviderSettings>,
    pub web: WebSettings,
    pub kernel: KernelSettings,
    pub daemon: DaemonSettings,
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
    pub context_dir: PathBuf,
    pub skills_dir: PathBuf,
    pub prompts_dir: PathBuf,
    /// Tool results are cut to this many characters.
    pub max_tool_output_chars: u64,
    /// The context files sent to the model are capped at this many bytes.
    pub max_context_bytes: u64,
    pub log_level: LogLevel,
    /// Keep the audit trail in `.hailer/audit.jsonl` (on unless set to false).
    pub audit: bool,
}

/// `[model]`: which model answers, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelSettings {
    pub name: String,
    /// The id of a provider in [`Config::model_providers`].
    pub provider: String,
    /// `None` sends no reasoning setting (written as `""`).
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Older turns are summarised past this many tokens; 0 turns summarising off.
    pub summarize_after_tokens: u64,
    pub credentials_store: CredentialsStore,
}

/// `[model_providers.<id>]`: an OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderSettings {
    pub base_url: String,
    /// The environment variable holding the API key (never the key itself).
    pub env_key: String,
    pub wire_api: WireApi,
    pub stream: bool,
    /// Asks for usage in streamed replies (only sent when `stream` is on too).
    pub stream_options: bool,
    /// The most tokens one answer may have (`max_output_tokens` on the Responses wire,
    /// `max_tokens` on Chat Completions); `None` sends no limit.
    pub max_output_tokens: Option<u32>,
    /// A display name.
    pub name: Option<String>,
    /// Extra headers sent with every request.
    pub http_headers: BTreeMap<String, String>,
    /// Header name to environment variable; sent only when the variable is set and not empty.
    pub env_http_headers: BTreeMap<String, String>,
    /// Added to the URL of every request.
    pub query_params: BTreeMap<String, String>,
}

/// `[web]`: what the page-fetching tool may reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSettings {
    /// Empty refuses every page.
    pub allowed_domains: AllowedDomains,
    pub max_page_bytes: u64,
}

/// `[kernel]`: where and how notebook code runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelSettings {
    pub runtime: Runtime,
    /// `None` means the image of this Hailer's kernel contract.
    pub image: Option<String>,
    /// The base image `hailer kernel build` starts from; `None` means the official Python
    /// image the recipe names.
    pub base_image: Option<String>,
    pub memory: MemoryLimit,
    pub cpus: f64,
    /// Lets a docker kernel reach the internet, this machine and other containers.
    pub network: bool,
    /// The Python for unsafe-local: a path (resolved against the workspace) or a command name
    /// looked up on PATH. `None` lets the daemon pick its managed Python.
    pub python: Option<PathBuf>,
}

/// `[daemon]`: how hailerd looks after sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonSettings {
    /// How long a session stays alive after its last client left.
    pub session_linger_secs: u64,
}

/// `[checks]`: the static checks run on the cells the agent changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChecksSettings {
    pub lint: bool,
    pub typecheck: bool,
    pub format: bool,
    /// The ruff program: a path (resolved against the workspace) or a command name. `None`
    /// looks next to the kernel's Python (unsafe-local), then on PATH.
    pub ruff: Option<PathBuf>,
    /// The ty program, found the same way as `ruff`.
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
        match self.kernel.runtime {
            Runtime::UnsafeLocal => "unsafe-local (runs as you; not isolated)".to_owned(),
            Runtime::Docker => {
                let network = if self.kernel.network {
                    "network on: the internet and this machine"
                } else {
                    "no network"
                };
                format!("docker (hailer-kernel {contract}; {network}; data read-only)")
            }
        }
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
