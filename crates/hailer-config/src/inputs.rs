//! What the loader is given: the user's flags, the client's environment, its current folder.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::env::ClientEnv;
use crate::mount_rules::AppDataDirs;

/// Command-line flags that override the file and the environment. `None` = flag not given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrides {
    /// `--workspace` (relative to the current folder).
    pub workspace: Option<PathBuf>,
    /// `--config` (relative to the current folder; must exist).
    pub config: Option<PathBuf>,
    /// `--model`.
    pub model: Option<String>,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--kernel` (`docker`, `sandbox` or `unsafe-local`).
    pub kernel: Option<String>,
    /// `--kernel-image`.
    pub kernel_image: Option<String>,
    /// `hailer kernel build --base-image`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_base_image: Option<String>,
    /// `--log-level` (`--verbose` is `DEBUG`).
    pub log_level: Option<String>,
    /// `--exec-timeout` (seconds one run of code may take).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec_timeout: Option<String>,
}

/// Everything the loader reads besides files. The daemon fills it from the client's request,
/// never from its own process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadInputs {
    /// The client's current folder (absolute).
    pub cwd: PathBuf,
    /// The user's home folder, for `~/` in paths and the data-folder rules.
    pub home: Option<PathBuf>,
    /// Where the user's Windows application data folders are (the data-folder rules refuse
    /// them even when redirected out of the profile); empty elsewhere.
    #[serde(default)]
    pub app_data: AppDataDirs,
    /// The client's command-line flags, which win over the environment and the file.
    pub overrides: Overrides,
    /// The client's `HAILER_*` variables, which win over the file.
    pub env: ClientEnv,
    /// The user's Hailer configuration folder, where `hailer trust` keeps its records. `None`
    /// knows no record, so a workspace's settings that need trust are not applied.
    #[serde(default)]
    pub config_dir: Option<PathBuf>,
}

impl LoadInputs {
    /// Inputs with no flags and no environment, for a given folder.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            home: None,
            app_data: AppDataDirs::default(),
            overrides: Overrides::default(),
            env: ClientEnv::new(),
            config_dir: None,
        }
    }

    /// The client's side: its current folder, home folder and application data folders,
    /// `HAILER_*` variables and Hailer's configuration folder (which `HAILER_HOME` moves).
    pub fn from_process(overrides: Overrides) -> std::io::Result<Self> {
        Ok(Self {
            cwd: std::env::current_dir()?,
            home: std::env::home_dir(),
            app_data: AppDataDirs::of_this_user(),
            overrides,
            env: ClientEnv::from_process(),
            config_dir: crate::home::HailerHome::from_env()
                .ok()
                .map(|home| home.config_dir),
        })
    }
}

/// Where an effective setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// A command-line flag such as `--model`.
    Flag,
    /// One of the client's `HAILER_*` variables.
    Environment,
    /// The configuration file (`hailer.toml`, or the one `--config` or `HAILER_CONFIG` names).
    File,
    /// None of them set it, so the built-in default applies.
    Default,
}

/// Where each setting that flags and variables can override came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sources {
    /// `[model].name`: `--model`, `HAILER_MODEL`, the file or the default.
    pub model: Provenance,
    /// `[model].provider`: `--provider`, `HAILER_MODEL_PROVIDER`, the file or the default.
    pub provider: Provenance,
    /// `[kernel].runtime`: `--kernel`, `HAILER_KERNEL`, the file or the default.
    pub runtime: Provenance,
    /// `[kernel].image`: `--kernel-image`, `HAILER_KERNEL_IMAGE`, the file or the default.
    pub image: Provenance,
    /// `[kernel].base_image`: `--base-image`, `HAILER_KERNEL_BASE_IMAGE`, the file or the
    /// default.
    pub base_image: Provenance,
    /// `[hailer].log_level`: `--log-level`, `HAILER_LOG_LEVEL`, the file or the default.
    pub log_level: Provenance,
}
