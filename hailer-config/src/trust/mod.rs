//! Workspace trust: the settings of a workspace's configuration file that run programs on this
//! machine or decide where secrets go apply only once the user agreed to exactly those settings.
//!
//! A cloned repository can carry a `hailer.toml`. Most of it is harmless, but a few settings
//! would act with the user's powers: `[checks] ruff`/`ty` and `[kernel] python` run programs
//! here, `[kernel] runtime = "unsafe-local"` runs the agent's code here outside the sandbox,
//! and a `[model_providers.<id>]` table decides which endpoint gets requests and the values of
//! its key and header variables. These are the *gated* settings ([`gated`]). A program inside
//! the workspace is trusted with its content: the digest covers the file's SHA-256 too, so a
//! pulled change to the script asks again. The
//! loader applies them only when the user's configuration folder holds a record (written by
//! `hailer trust`) whose digest matches them; otherwise it drops them, with a warning naming
//! each one and the command. A change to any of them changes the digest and asks again.
//!
//! The built-in `openai` provider and a configuration file inside the user's own configuration
//! folder need no agreement.

mod store;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::paths;
use crate::problem::{Area, Origin, Problem, Report};
use crate::schema::{Config, OPENAI_PROVIDER, ProviderSettings, Runtime, WireApi};

/// How much of a program file inside the workspace the digest reads; a longer file is covered
/// by this much and its length.
const PROGRAM_DIGEST_BYTES: u64 = 64 * 1024 * 1024;

pub use store::{TrustError, TrustStore};

/// The command that records the user's agreement.
pub const TRUST_COMMAND: &str = "hailer trust";

/// Whether the gated settings of the configuration file apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustState {
    /// No configuration file, or one with no gated settings.
    NotNeeded,
    /// The file lives in the user's own configuration folder.
    UserConfig,
    /// `hailer trust` recorded exactly these settings.
    Trusted,
    /// Never trusted: the gated settings were dropped.
    NotTrusted,
    /// Trusted once, but the gated settings changed since: they were dropped.
    Changed,
}

impl TrustState {
    /// True when the gated settings were dropped.
    pub fn refuses(self) -> bool {
        matches!(self, TrustState::NotTrusted | TrustState::Changed)
    }
}

/// One setting that needs the user's agreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatedSetting {
    /// The setting as users write it: `[checks] ruff` or `[model_providers.acme]`.
    pub name: String,
    /// The provider id for a provider table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// What it would do, as the end of a sentence: "runs tools/x.sh on this machine".
    pub effect: String,
    /// For a provider: its key variable, then its header variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<String>,
    /// The setting and its exact value, as the digest covers it.
    pub exact: String,
}

/// The trust decision for one loaded configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trust {
    /// Whether the gated settings apply, and if not, why.
    pub state: TrustState,
    /// The configuration file the decision is about.
    pub file: Option<PathBuf>,
    /// The digest of the gated settings (`sha256:<hex>`), what `hailer trust` records.
    pub digest: String,
    /// Every gated setting of the file, applied or not.
    pub settings: Vec<GatedSetting>,
}

impl Default for Trust {
    fn default() -> Self {
        Self {
            state: TrustState::NotNeeded,
            file: None,
            digest: digest_of(&[]),
            settings: Vec::new(),
        }
    }
}

impl Trust {
    /// True when `provider` was declared by the file and dropped because it is not trusted.
    pub fn refused_provider(&self, provider: &str) -> bool {
        self.state.refuses()
            && self
                .settings
                .iter()
                .any(|setting| setting.provider.as_deref() == Some(provider))
    }

    /// What to tell someone who asked for a provider this load refused: a message and a hint.
    pub fn provider_refusal(&self, provider: &str) -> Option<(String, String)> {
        self.refused_provider(provider).then(|| {
            let file = self
                .file
                .as_deref()
                .map(|file| file.display().to_string())
                .unwrap_or_default();
            (
                format!(
                    "the provider '{provider}' is declared in {file}, which you have not trusted{}, so nothing is sent to it",
                    if self.state == TrustState::Changed {
                        " since its settings changed"
                    } else {
                        ""
                    }
                ),
                format!(
                    "Read the file, then run `{TRUST_COMMAND}` in this workspace to use it."
                ),
            )
        })
    }
}

/// What a trust decision was, for whoever keeps a record of such decisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum TrustDecision {
    /// `hailer trust` agreed to these settings.
    Granted {
        /// The configuration file, absolute with links resolved.
        file: PathBuf,
        /// The digest of the gated settings agreed to (`sha256:<hex>`).
        digest: String,
    },
    /// `hailer trust --revoke` withdrew the agreement.
    Revoked {
        /// The configuration file whose record was removed, with links resolved.
        file: PathBuf,
    },
    /// A load dropped the gated settings of a file nobody agreed to (or that changed since).
    Refused {
        /// The configuration file, absolute with links resolved.
        file: PathBuf,
        /// The digest of the gated settings as the file has them now (`sha256:<hex>`).
        digest: String,
        /// The names of the dropped settings, as in [`GatedSetting::name`].
        settings: Vec<String>,
    },
}

impl Trust {
    /// The decision this load made, when it refused something.
    pub fn decision(&self) -> Option<TrustDecision> {
        let file = self.file.clone()?;
        self.state.refuses().then(|| TrustDecision::Refused {
            file,
            digest: self.digest.clone(),
            settings: self.settings.iter().map(|s| s.name.clone()).collect(),
        })
    }
}

/// Records the user's agreement to the settings `trust` found (what `hailer trust` does).
/// `None` when the file has nothing that needs trust, so nothing was recorded.
pub fn grant(trust: &Trust, store: &TrustStore) -> Result<Option<TrustDecision>, TrustError> {
    let Some(file) = &trust.file else {
        return Ok(None);
    };
    if trust.settings.is_empty() {
        return Ok(None);
    }
    store.record(file, &trust.digest)?;
    Ok(Some(TrustDecision::Granted {
        file: file.clone(),
        digest: trust.digest.clone(),
    }))
}

/// Withdraws the agreement for `file` (`hailer trust --revoke`); `None` when there was none.
pub fn revoke(file: &Path, store: &TrustStore) -> Result<Option<TrustDecision>, TrustError> {
    let file = paths::resolve_existing(file);
    Ok(store
        .revoke(&file)?
        .then(|| TrustDecision::Revoked { file: file.clone() }))
}

/// The gated settings of a configuration read from a file, in a fixed order. `runtime_from_file`
/// says whether the file (rather than a flag or a variable of the user's) chose the runtime.
pub fn gated(config: &Config, workspace: &Path, runtime_from_file: bool) -> Vec<GatedSetting> {
    let mut settings = Vec::new();
    let program = |name: &str, path: Option<&PathBuf>| {
        path.map(|path| {
            let shown = paths::display_relative(workspace, path);
            let content = program_content(workspace, path)
                .map(|digest| format!(" ({digest})"))
                .unwrap_or_default();
            GatedSetting {
                name: name.to_owned(),
                provider: None,
                effect: format!("runs {shown} on this machine"),
                variables: Vec::new(),
                exact: format!("{name} = {:?}{content}", path.display().to_string()),
            }
        })
    };
    settings.extend(program("[checks] ruff", config.checks.ruff.as_ref()));
    settings.extend(program("[checks] ty", config.checks.ty.as_ref()));
    settings.extend(program("[kernel] python", config.kernel.python.as_ref()));
    if runtime_from_file && config.kernel.runtime == Runtime::UnsafeLocal {
        settings.push(GatedSetting {
            name: "[kernel] runtime".to_owned(),
            provider: None,
            effect: "runs the agent's notebook code on this machine as you, outside the Docker \
                     sandbox"
                .to_owned(),
            variables: Vec::new(),
            exact: "[kernel] runtime = \"unsafe-local\"".to_owned(),
        });
    }
    let builtin = ProviderSettings::openai();
    for (id, provider) in &config.model_providers {
        let is_builtin = id == OPENAI_PROVIDER && *provider == builtin;
        if is_builtin || provider.wire_api == WireApi::Demo {
            continue;
        }
        settings.push(provider_setting(id, provider));
    }
    settings
}

/// `sha256:<hex>` of a program that lives inside the workspace (after following links), or
/// `missing` when it does not exist; `None` for a program elsewhere (an installed tool whose
/// upgrades are the user's own).
fn program_content(workspace: &Path, path: &Path) -> Option<String> {
    use std::io::Read as _;
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    };
    let root = paths::resolve_existing(workspace);
    let Ok(real) = std::fs::canonicalize(&path) else {
        // A program that is not there (yet) is trusted as missing: one that appears asks again.
        return paths::resolve_existing(&path)
            .starts_with(&root)
            .then(|| "missing".to_owned());
    };
    if !real.starts_with(&root) {
        return None;
    }
    let mut hasher = Sha256::new();
    let read = std::fs::File::open(&real).and_then(|file| {
        let length = file.metadata()?.len();
        let mut limited = file.take(PROGRAM_DIGEST_BYTES);
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let n = limited.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
        }
        Ok(length)
    });
    match read {
        Ok(length) => {
            hasher.update(length.to_le_bytes());
            Some(format!("sha256:{}", hex::encode(hasher.finalize())))
        }
        Err(error) => Some(format!("unreadable: {}", error.kind())),
    }
}

fn provider_setting(id: &str, provider: &ProviderSettings) -> GatedSetting {
    let mut variables = vec![provider.env_key.clone()];
    variables.extend(provider.env_http_headers.values().cloned());
    variables.dedup();
    GatedSetting {
        name: format!("[model_providers.{id}]"),
        provider: Some(id.to_owned()),
        effect: format!(
            "sends your requests and the value of {} to {}",
            variables.join(", "),
            provider.base_url
        ),
        variables,
        exact: format!(
            "[model_providers.{id}] base_url = {:?}, env_key = {:?}, wire_api = {:?}, \
             http_headers = {:?}, env_http_headers = {:?}, query_params = {:?}",
            provider.base_url,
            provider.env_key,
            provider.wire_api,
            provider.http_headers,
            provider.env_http_headers,
            provider.query_params
        ),
    }
}

/// `sha256:<hex>` over the file's gated settings.
fn digest_of(settings: &[GatedSetting]) -> String {
    let mut hasher = Sha256::new();
    for setting in settings {
        hasher.update(setting.exact.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// Decides the trust of a configuration read from `file`, and drops its gated settings when
/// they are not trusted, with a warning for each. `config_dir` is the user's configuration
/// folder; without one nothing can have been agreed to.
pub(crate) fn apply(
    config: &mut Config,
    file: Option<&Path>,
    workspace: &Path,
    runtime_from_file: bool,
    config_dir: Option<&Path>,
    report: &mut Report,
) -> Trust {
    let Some(file) = file else {
        return Trust::default();
    };
    let settings = gated(config, workspace, runtime_from_file);
    let digest = digest_of(&settings);
    let file = paths::resolve_existing(file);
    let state = if settings.is_empty() {
        TrustState::NotNeeded
    } else if config_dir.is_some_and(|dir| file.starts_with(paths::resolve_existing(dir))) {
        TrustState::UserConfig
    } else {
        match config_dir.map(|dir| TrustStore::in_config_dir(dir).recorded(&file)) {
            Some(Ok(Some(recorded))) if recorded == digest => TrustState::Trusted,
            Some(Ok(Some(_))) => TrustState::Changed,
            _ => TrustState::NotTrusted,
        }
    };
    if state.refuses() {
        refuse(config, &settings, state, &file, workspace, report);
    }
    Trust {
        state,
        file: Some(file),
        digest,
        settings,
    }
}

/// Drops the gated settings and says so, once per setting.
fn refuse(
    config: &mut Config,
    settings: &[GatedSetting],
    state: TrustState,
    file: &Path,
    workspace: &Path,
    report: &mut Report,
) {
    config.checks.ruff = None;
    config.checks.ty = None;
    config.kernel.python = None;
    if settings
        .iter()
        .any(|setting| setting.name == "[kernel] runtime")
    {
        config.kernel.runtime = Runtime::Docker;
    }
    for id in settings.iter().filter_map(|s| s.provider.as_deref()) {
        if id == OPENAI_PROVIDER {
            // A redefined built-in provider: the definition is refused, the built-in stays.
            config
                .model_providers
                .insert(OPENAI_PROVIDER.to_owned(), ProviderSettings::openai());
        } else {
            config.model_providers.remove(id);
        }
    }
    if !report.is_ok() {
        // The file does not load anyway: its own problems come first.
        return;
    }
    let label = paths::display_relative(workspace, file);
    let why = match state {
        TrustState::Changed => {
            "is not applied: the settings that need trust changed since you trusted this file"
        }
        _ => "is not applied until you trust this workspace",
    };
    for setting in settings {
        report.push(
            Problem::warning(
                Origin::File {
                    path: label.clone(),
                    line: None,
                },
                format!(
                    "{} {}; it {why}. Review it, then run `{TRUST_COMMAND}` here",
                    setting.name, setting.effect
                ),
                format!(
                    "Run `{TRUST_COMMAND}` in this workspace once you have read {label}; \
                     `{TRUST_COMMAND} --show` lists what it would apply."
                ),
            )
            .at(Some(&setting.name), None)
            .in_area(Area::Trust),
        );
    }
}
