//! pip's own settings: its configuration files in pip's order, then its `PIP_*` variables.
//!
//! Files, later ones overriding earlier ones: the global files (`<each XDG_CONFIG_DIRS
//! entry>/pip/pip.conf`, then `/etc/pip.conf`), the user files (`~/.pip/pip.conf`, then
//! `$XDG_CONFIG_HOME/pip/pip.conf`) unless `PIP_CONFIG_FILE` names a file that exists, the
//! virtual environment's `pip.conf`, then `PIP_CONFIG_FILE`. `PIP_CONFIG_FILE=/dev/null` skips
//! every file. In each file `[install]` wins over `[global]`; variables win over files.

use std::path::{Path, PathBuf};

use super::ini;
use super::settings::{Key, Origin, Settings, Sourced};
use super::{HostConfigError, HostInputs};

/// pip's name for "read no file at all".
const NULL_DEVICE: &str = "/dev/null";

/// The sections pip reads for `pip install`, weakest first.
const SECTIONS: [&str; 2] = ["global", "install"];

/// pip's settings as pip itself would see them.
pub(super) fn discover(inputs: &HostInputs<'_>) -> Result<Settings, HostConfigError> {
    Ok(every_setting(inputs)?
        .into_iter()
        .filter_map(|(name, value)| Some((Key::from_pip_name(&name)?, value)))
        .collect())
}

/// Every setting pip reads for `pip install`, by the name pip normalises it to (`index-url`),
/// empty values left out.
pub(super) fn every_setting(
    inputs: &HostInputs<'_>,
) -> Result<std::collections::BTreeMap<String, Sourced>, HostConfigError> {
    let mut by_section: [std::collections::BTreeMap<String, Sourced>; 2] = Default::default();
    for path in files(inputs) {
        let Some(bytes) = inputs.read_file(&path)? else {
            continue;
        };
        let text = String::from_utf8(bytes).map_err(|_| HostConfigError::Malformed {
            path: path.clone(),
            line: None,
            reason: "it is not UTF-8 text",
        })?;
        let parsed = ini::parse(&text).map_err(|error| HostConfigError::Malformed {
            path: path.clone(),
            line: Some(error.line),
            reason: error.reason,
        })?;
        for (slot, section) in by_section.iter_mut().zip(SECTIONS) {
            for (name, value) in parsed.section(section).into_iter().flatten() {
                // pip ignores empty values.
                if !value.trim().is_empty() {
                    slot.insert(
                        normal_name(name),
                        Sourced {
                            text: value.clone(),
                            origin: Origin::File(path.clone()),
                        },
                    );
                }
            }
        }
    }
    let [mut settings, install] = by_section;
    settings.extend(install);
    for (name, value) in inputs.env {
        let Some(rest) = name.strip_prefix("PIP_") else {
            continue;
        };
        if rest != "CONFIG_FILE" && !value.trim().is_empty() {
            settings.insert(
                normal_name(rest),
                Sourced {
                    text: value.clone(),
                    origin: Origin::Variable(name.clone()),
                },
            );
        }
    }
    Ok(settings)
}

/// A name as pip normalises it: `Index_URL` and `--index-url` are `index-url`.
fn normal_name(name: &str) -> String {
    let normal = name.trim().to_lowercase().replace('_', "-");
    normal.strip_prefix("--").unwrap_or(&normal).to_owned()
}

/// The files pip would read, weakest first.
fn files(inputs: &HostInputs<'_>) -> Vec<PathBuf> {
    let env_file = inputs.var("PIP_CONFIG_FILE").map(PathBuf::from);
    if env_file.as_deref() == Some(Path::new(NULL_DEVICE)) {
        return Vec::new();
    }
    let env_file = env_file.map(|path| inputs.absolute(&path));
    let mut files: Vec<PathBuf> = config_dirs(inputs)
        .into_iter()
        .map(|dir| dir.join("pip").join("pip.conf"))
        .collect();
    files.push(PathBuf::from("/etc/pip.conf"));
    let env_file_exists = env_file
        .as_deref()
        .is_some_and(|path| matches!(inputs.read_file(path), Ok(Some(_))));
    if !env_file_exists {
        if let Some(home) = inputs.home() {
            files.push(home.join(".pip").join("pip.conf"));
        }
        if let Some(config_home) = inputs.config_home() {
            files.push(config_home.join("pip").join("pip.conf"));
        }
    }
    if let Some(venv) = inputs.var("VIRTUAL_ENV") {
        files.push(Path::new(venv).join("pip.conf"));
    }
    files.extend(env_file);
    files
}

/// `XDG_CONFIG_DIRS`, or `/etc/xdg`.
pub(super) fn config_dirs(inputs: &HostInputs<'_>) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = inputs
        .var("XDG_CONFIG_DIRS")
        .unwrap_or_default()
        .split(':')
        .filter(|dir| Path::new(dir).is_absolute())
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        vec![PathBuf::from("/etc/xdg")]
    } else {
        dirs
    }
}
