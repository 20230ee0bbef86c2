//! Workspace trust: the settings of a workspace's configuration file that run programs on this
//! machine, widen what the kernel can reach, move where Hailer reads or writes, or decide where
//! secrets go apply only once the user agreed to exactly those settings.
//!
//! A cloned repository can carry a `hailer.toml`. Most of it is harmless, but some settings would
//! act with the user's powers ([`gated`]): `[checks] ruff`/`ty` and `[kernel] python` run programs
//! here; `[kernel] runtime = "unsafe-local"` runs the agent's code here outside the sandbox;
//! `[kernel] network`, `image` and `base_image` decide what the kernel reaches and what it runs
//! in; a folder setting (`notebook`, `notebooks_dir`, `data_dir`, `context_dir`, `skills_dir`,
//! `prompts_dir`) that leads outside the workspace once `~` and links are resolved reads or
//! writes files elsewhere; a `[web] allowed_domains` entry for a loopback, private or link-local
//! address, a local network name or a wildcard over a public suffix lets the page tool read this
//! machine or its network; and a `[model_providers.<id>]` table decides which endpoint gets
//! requests and the values of its key and header variables.
//!
//! Each setting is trusted on its own: the record `hailer trust` writes in the user's
//! configuration folder, kept per workspace and configuration file (both with links resolved),
//! holds a digest of every setting agreed to. The loader applies a setting only when its digest
//! matches; otherwise it drops that setting alone, falls back to the safe default, and warns
//! naming it and the command. Editing one setting (adding a provider) never revokes another (the
//! runtime). A program setting is trusted with where it leads and its content (see
//! [`GatedSetting::program_unchanged`], checked again before it runs).
//!
//! The built-in `openai` provider and a configuration file inside the user's own configuration
//! folder need no agreement.

mod gated;
mod program;
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::inputs::Sources;
use crate::paths;
use crate::problem::{Area, Origin, Problem, Report};
use crate::sanitize::escape_visible;
use crate::schema::{Config, OPENAI_PROVIDER, ProviderSettings, Runtime};

pub(crate) use gated::gated;
pub use store::{TrustError, TrustStore};

/// The command that records the user's agreement.
pub(crate) const TRUST_COMMAND: &str = "hailer trust";

/// Whether the gated settings of the configuration file apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustState {
    /// No configuration file, or one with no gated settings.
    NotNeeded,
    /// The file lives in the user's own configuration folder.
    UserConfig,
    /// `hailer trust` recorded every gated setting as it is now.
    Trusted,
    /// Some gated settings were never trusted: those were dropped.
    NotTrusted,
    /// Some gated settings changed since they were trusted (and none is merely new): those
    /// were dropped.
    Changed,
}

impl TrustState {
    /// True when some gated settings were dropped.
    pub fn refuses(self) -> bool {
        matches!(self, TrustState::NotTrusted | TrustState::Changed)
    }
}

/// Whether one gated setting applies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingStatus {
    /// Agreed to as it is now (or the file needs no agreement): it applies.
    Applied,
    /// Never agreed to: it was dropped.
    #[default]
    New,
    /// Agreed to with another value: it was dropped.
    Changed,
}

/// One setting that needs the user's agreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatedSetting {
    /// The setting as users write it: `[checks] ruff`, `[model_providers.acme]` or
    /// `[web] allowed_domains "127.0.0.1"`. Values from the file are shown with visible escapes.
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
    /// Whether it applies.
    #[serde(default)]
    pub status: SettingStatus,
    /// For a program setting: the program as configured (absolute, or a command name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<PathBuf>,
}

impl GatedSetting {
    /// True when the setting applies.
    pub fn applies(&self) -> bool {
        self.status == SettingStatus::Applied
    }

    /// `sha256:<hex>` of the setting's exact value: what a trust record holds for it.
    fn digest(&self) -> String {
        format!(
            "sha256:{}",
            hex::encode(Sha256::digest(self.exact.as_bytes()))
        )
    }
}

/// The trust decision for one loaded configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trust {
    /// Whether the gated settings apply, and if not, why.
    pub state: TrustState,
    /// The configuration file the decision is about, absolute with links resolved.
    pub file: Option<PathBuf>,
    /// The workspace the file was loaded for, absolute with links resolved: trust is recorded
    /// per workspace and file.
    #[serde(default)]
    pub workspace: Option<PathBuf>,
    /// The digest of all gated settings (`sha256:<hex>`), for the audit trail.
    pub digest: String,
    /// Every gated setting of the file, applied or not.
    pub settings: Vec<GatedSetting>,
}

impl Default for Trust {
    fn default() -> Self {
        Self {
            state: TrustState::NotNeeded,
            file: None,
            workspace: None,
            digest: digest_of(&[]),
            settings: Vec::new(),
        }
    }
}

impl Trust {
    /// The gated settings this load dropped.
    pub fn refused(&self) -> impl Iterator<Item = &GatedSetting> {
        self.settings.iter().filter(|setting| !setting.applies())
    }

    /// The gated setting called `name`, applied or not.
    pub fn setting(&self, name: &str) -> Option<&GatedSetting> {
        self.settings.iter().find(|setting| setting.name == name)
    }

    /// True when `provider` was declared by the file and dropped because it is not trusted.
    pub fn refused_provider(&self, provider: &str) -> bool {
        self.refused()
            .any(|setting| setting.provider.as_deref() == Some(provider))
    }

    /// What to tell someone who asked for a provider this load refused: a message and a hint.
    pub fn provider_refusal(&self, provider: &str) -> Option<(String, String)> {
        let setting = self
            .refused()
            .find(|setting| setting.provider.as_deref() == Some(provider))?;
        let file = self
            .file
            .as_deref()
            .map(|file| escape_visible(&file.display().to_string()))
            .unwrap_or_default();
        Some((
            format!(
                "the provider '{}' is declared in {file}, which you have not trusted{}, so \
                 nothing is sent to it",
                escape_visible(provider),
                if setting.status == SettingStatus::Changed {
                    " since its settings changed"
                } else {
                    ""
                }
            ),
            format!("Read the file, then run `{TRUST_COMMAND}` in this workspace to use it."),
        ))
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
            settings: self.refused().map(|s| s.name.clone()).collect(),
        })
    }
}

/// Records the user's agreement to the settings `trust` found (what `hailer trust` does): every
/// one of them, as it is now. `None` when the file has nothing that needs trust, so nothing was
/// recorded.
pub fn grant(trust: &Trust, store: &TrustStore) -> Result<Option<TrustDecision>, TrustError> {
    let (Some(file), Some(workspace)) = (&trust.file, &trust.workspace) else {
        return Ok(None);
    };
    if trust.settings.is_empty() {
        return Ok(None);
    }
    let agreed: BTreeMap<String, String> = trust
        .settings
        .iter()
        .map(|setting| (setting.name.clone(), setting.digest()))
        .collect();
    store.record(workspace, file, &agreed)?;
    Ok(Some(TrustDecision::Granted {
        file: file.clone(),
        digest: trust.digest.clone(),
    }))
}

/// Withdraws the agreement for the file `trust` is about (`hailer trust --revoke`); `None` when
/// there was none.
pub fn revoke(trust: &Trust, store: &TrustStore) -> Result<Option<TrustDecision>, TrustError> {
    let (Some(file), Some(workspace)) = (&trust.file, &trust.workspace) else {
        return Ok(None);
    };
    Ok(store
        .revoke(workspace, file)?
        .then(|| TrustDecision::Revoked { file: file.clone() }))
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

/// Decides the trust of a configuration read from `file`, and drops each gated setting that is
/// not trusted, with a warning for each. `config_dir` is the user's configuration folder;
/// without one nothing can have been agreed to.
pub(crate) fn apply(
    config: &mut Config,
    file: Option<&Path>,
    workspace: &Path,
    sources: &Sources,
    config_dir: Option<&Path>,
    report: &mut Report,
) -> Trust {
    let Some(file) = file else {
        return Trust::default();
    };
    let mut settings = gated(config, workspace, sources);
    let digest = digest_of(&settings);
    let file = paths::resolve_existing(file);
    let root = paths::resolve_existing(workspace);
    let own = config_dir.is_some_and(|dir| file.starts_with(paths::resolve_existing(dir)));
    let recorded = match config_dir {
        Some(dir) if !own => TrustStore::in_config_dir(dir)
            .recorded(&root, &file)
            .ok()
            .flatten()
            .unwrap_or_default(),
        _ => BTreeMap::new(),
    };
    for setting in &mut settings {
        setting.status = match recorded.get(&setting.name) {
            _ if own => SettingStatus::Applied,
            Some(agreed) if *agreed == setting.digest() => SettingStatus::Applied,
            Some(_) => SettingStatus::Changed,
            None => SettingStatus::New,
        };
    }
    let state = if settings.is_empty() {
        TrustState::NotNeeded
    } else if own {
        TrustState::UserConfig
    } else if settings.iter().all(GatedSetting::applies) {
        TrustState::Trusted
    } else if settings
        .iter()
        .any(|setting| setting.status == SettingStatus::New)
    {
        TrustState::NotTrusted
    } else {
        TrustState::Changed
    };
    let trust = Trust {
        state,
        file: Some(file),
        workspace: Some(root),
        digest,
        settings,
    };
    if state.refuses() {
        refuse(config, &trust, workspace, report);
    }
    trust
}

/// Drops the refused settings (each falls back to its safe default) and says so, once per
/// setting.
fn refuse(config: &mut Config, trust: &Trust, workspace: &Path, report: &mut Report) {
    let refused = |name: &str| trust.refused().any(|setting| setting.name == name);
    if refused("[checks] ruff") {
        config.checks.ruff = None;
    }
    if refused("[checks] ty") {
        config.checks.ty = None;
    }
    if refused("[kernel] python") {
        config.kernel.python = None;
    }
    if refused("[kernel] runtime") {
        config.kernel.runtime = Runtime::Docker;
    }
    if refused("[kernel] network") {
        config.kernel.network = false;
    }
    if refused("[kernel] image") {
        config.kernel.image = None;
    }
    if refused("[kernel] base_image") {
        config.kernel.base_image = None;
    }
    refuse_folders(config, workspace, &refused);
    let rules = config.web.allowed_domains.rules().to_vec();
    config.web.allowed_domains = crate::domains::AllowedDomains::new(
        rules
            .into_iter()
            .filter(|rule| !refused(&gated::domain_setting_name(rule)))
            .collect(),
    );
    for id in trust.refused().filter_map(|s| s.provider.as_deref()) {
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
    let label = escape_visible(&paths::display_relative(
        workspace,
        trust.file.as_deref().unwrap_or(workspace),
    ));
    for setting in trust.refused() {
        let why = match setting.status {
            SettingStatus::Changed => "is not applied: it changed since you trusted this file",
            _ => "is not applied until you trust it",
        };
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

/// A refused folder setting falls back to its default inside the workspace; when the default
/// itself leads outside (a link in the repository), to a folder under `.hailer` that holds
/// nothing. The notebook and its folder go back together, as one must hold the other.
fn refuse_folders(config: &mut Config, workspace: &Path, refused: &dyn Fn(&str) -> bool) {
    let root = paths::resolve_existing(workspace);
    let inside = |default: &str, name: &str| {
        let path = paths::absolute(workspace, Path::new(default));
        if paths::resolve_existing(&path).starts_with(&root) {
            path
        } else {
            workspace
                .join(crate::mount_rules::STATE_DIR)
                .join("withheld")
                .join(name.trim_start_matches("[hailer] "))
        }
    };
    let [
        notebook,
        notebooks_dir,
        data_dir,
        context_dir,
        skills_dir,
        prompts_dir,
    ] = gated::FOLDERS;
    let hailer = &mut config.hailer;
    if refused(notebook.0) || refused(notebooks_dir.0) {
        hailer.notebooks_dir = inside(notebooks_dir.1, notebooks_dir.0);
        hailer.notebook = hailer
            .notebooks_dir
            .join(crate::schema::defaults::NOTEBOOK_FILE_NAME);
    }
    for ((name, default), value) in [
        (data_dir, &mut hailer.data_dir),
        (context_dir, &mut hailer.context_dir),
        (skills_dir, &mut hailer.skills_dir),
        (prompts_dir, &mut hailer.prompts_dir),
    ] {
        if refused(name) {
            *value = inside(default, name);
        }
    }
}
