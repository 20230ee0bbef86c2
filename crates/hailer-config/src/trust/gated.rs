//! Which settings of a configuration file need trust, each with what it would do.

use std::path::{Path, PathBuf};

use super::{GatedSetting, SettingStatus, program};
use crate::domains::DomainRule;
use crate::inputs::{Provenance, Sources};
use crate::paths;
use crate::sanitize::escape_visible;
use crate::schema::{Config, OPENAI_PROVIDER, ProviderSettings, Runtime, WireApi, defaults};

/// The setting names of the folder settings, with the default each falls back to.
pub(super) const FOLDERS: [(&str, &str); 6] = [
    ("[hailer] notebook", defaults::NOTEBOOK),
    ("[hailer] notebooks_dir", "notebooks"),
    ("[hailer] data_dir", defaults::DATA_DIR),
    ("[hailer] context_dir", defaults::CONTEXT_DIR),
    ("[hailer] skills_dir", defaults::SKILLS_DIR),
    ("[hailer] prompts_dir", defaults::PROMPTS_DIR),
];

/// The gated settings of a configuration read from a file, in a fixed order. `sources` says
/// which of the overridable settings the file (rather than a flag or a variable of the user's)
/// chose: only those are the file's to be trusted.
pub(crate) fn gated(config: &Config, workspace: &Path, sources: &Sources) -> Vec<GatedSetting> {
    let mut settings = Vec::new();
    for (name, path) in [
        ("[checks] ruff", config.checks.ruff.as_ref()),
        ("[checks] ty", config.checks.ty.as_ref()),
        ("[kernel] python", config.kernel.python.as_ref()),
    ] {
        settings.extend(path.map(|path| program::setting(name, path, workspace)));
    }
    // A file may not move the kernel out of Docker on its own: unsafe-local runs as the user,
    // and the sandbox sees this machine's system folders and writes the notebooks folder in
    // place.
    let leaves_docker = match config.kernel.runtime {
        Runtime::UnsafeLocal => Some((
            "runs the agent's notebook code on this machine as you, outside the Docker sandbox",
            "[kernel] runtime = \"unsafe-local\"",
        )),
        Runtime::Sandbox => Some((
            "runs the agent's notebook code on this machine in the operating system's sandbox \
             instead of Docker: it reads the system's folders and writes the notebooks folder \
             in place",
            "[kernel] runtime = \"sandbox\"",
        )),
        Runtime::Docker => None,
    };
    if sources.runtime == Provenance::File
        && let Some((effect, value)) = leaves_docker
    {
        settings.push(plain(
            "[kernel] runtime",
            effect.to_owned(),
            value.to_owned(),
        ));
    }
    if config.kernel.network {
        settings.push(plain(
            "[kernel] network",
            "lets notebook code reach the internet, this machine and your local network".to_owned(),
            "[kernel] network = true".to_owned(),
        ));
    }
    let images = [
        (
            "[kernel] image",
            sources.image,
            config.kernel.image.as_ref(),
            "runs the docker kernel, and your data, in the image",
        ),
        (
            "[kernel] base_image",
            sources.base_image,
            config.kernel.base_image.as_ref(),
            "builds the kernel image (`hailer kernel build`) from",
        ),
    ];
    for (name, source, image, effect) in images {
        if let (Provenance::File, Some(image)) = (source, image) {
            settings.push(plain(
                name,
                format!("{effect} {}", escape_visible(image)),
                format!("{name} = {image:?}"),
            ));
        }
    }
    settings.extend(folders(config, workspace));
    for rule in config.web.allowed_domains.rules() {
        if let Some(reach) = rule.private_reach() {
            settings.push(plain(
                &domain_setting_name(rule),
                format!("lets the page-fetching tool read {reach}"),
                domain_setting_name(rule),
            ));
        }
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

/// The name of the gated setting for one `[web] allowed_domains` entry.
pub(super) fn domain_setting_name(rule: &DomainRule) -> String {
    format!("[web] allowed_domains \"{rule}\"")
}

/// Every folder setting that leads outside the workspace once `~` and links are resolved.
fn folders(config: &Config, workspace: &Path) -> Vec<GatedSetting> {
    let hailer = &config.hailer;
    let root = paths::resolve_existing(workspace);
    let values: [&PathBuf; 6] = [
        &hailer.notebook,
        &hailer.notebooks_dir,
        &hailer.data_dir,
        &hailer.context_dir,
        &hailer.skills_dir,
        &hailer.prompts_dir,
    ];
    let effects = [
        "opens and writes the notebook",
        "reads and writes notebooks in",
        "gives notebook code the files in",
        "sends the model the notes in",
        "gives the agent the skills in",
        "reads prompts from",
    ];
    FOLDERS
        .iter()
        .zip(values)
        .zip(effects)
        .filter_map(|(((name, _), path), effect)| {
            let real = paths::resolve_existing(path);
            (!real.starts_with(&root)).then(|| {
                plain(
                    name,
                    format!(
                        "{effect} {}, outside this workspace",
                        escape_visible(&real.display().to_string())
                    ),
                    format!(
                        "{name} = {:?} -> {:?}",
                        path.display().to_string(),
                        real.display().to_string()
                    ),
                )
            })
        })
        .collect()
}

fn plain(name: &str, effect: String, exact: String) -> GatedSetting {
    GatedSetting {
        name: name.to_owned(),
        provider: None,
        effect,
        variables: Vec::new(),
        exact,
        status: SettingStatus::default(),
        program: None,
    }
}

fn provider_setting(id: &str, provider: &ProviderSettings) -> GatedSetting {
    let mut variables = vec![provider.env_key.clone()];
    variables.extend(provider.env_http_headers.values().cloned());
    variables.dedup();
    GatedSetting {
        name: format!("[model_providers.{}]", escape_visible(id)),
        provider: Some(id.to_owned()),
        effect: escape_visible(&format!(
            "sends your requests and the value of {} to {}",
            variables.join(", "),
            provider.base_url
        )),
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
        status: SettingStatus::default(),
        program: None,
    }
}
