//! The host's package index settings, for building the kernel image behind a company mirror.
//!
//! pip's configuration files and `PIP_*` variables come first; when they name no index, uv's
//! configuration and `UV_*` variables. Only index addresses, trusted hosts, the proxy, the CA
//! file, no-index, web find-links, the timeout and retries are carried over, merged into one
//! pip configuration for the build stage, plus the CA file (pip's `cert`, else
//! `REQUESTS_CA_BUNDLE`, else `SSL_CERT_FILE`).
//!
//! Everything here is a pure function of [`HostInputs`]: the environment, the current folder
//! and a file reader, so tests give their own. Nothing here prints a value: messages name the
//! file or variable a value came from, never the value (an index address may hold a password).

mod ini;
mod pip;
mod settings;
mod uv;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use secrecy::SecretString;

use settings::{Key, Origin, Sourced};

/// The largest configuration file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Reads a file: `Ok(None)` when it does not exist.
pub(crate) type FileReader = dyn Fn(&Path) -> std::io::Result<Option<Vec<u8>>> + Sync;

/// What discovery looks at.
pub struct HostInputs<'a> {
    /// The environment of the user who runs the build (not the daemon's).
    pub env: &'a BTreeMap<String, String>,
    /// Their current folder (absolute), where uv looks for project settings.
    pub cwd: &'a Path,
    /// How configuration files are read; [`read_host_file`] on a real machine, a map of
    /// made-up files in tests.
    pub read: &'a FileReader,
}

impl HostInputs<'_> {
    /// A variable that is set and not empty.
    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.trim().is_empty())
    }

    fn home(&self) -> Option<PathBuf> {
        self.var("HOME")
            .map(PathBuf::from)
            .filter(|home| home.is_absolute())
    }

    /// `XDG_CONFIG_HOME`, or `~/.config`.
    fn config_home(&self) -> Option<PathBuf> {
        self.var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|dir| dir.is_absolute())
            .or_else(|| self.home().map(|home| home.join(".config")))
    }

    /// `path` with `~` expanded and made absolute against the current folder.
    fn absolute(&self, path: &Path) -> PathBuf {
        if let Ok(rest) = path.strip_prefix("~")
            && let Some(home) = self.home()
        {
            return home.join(rest);
        }
        self.cwd.join(path)
    }

    fn read_file(&self, path: &Path) -> Result<Option<Vec<u8>>, HostConfigError> {
        (self.read)(path).map_err(|source| HostConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The reader of this machine's files (at most 1 MiB each).
pub fn read_host_file(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::File::open(path) {
        Ok(file) => {
            if file.metadata()?.is_dir() {
                return Ok(None);
            }
            let mut bytes = Vec::new();
            file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > MAX_FILE_BYTES {
                return Err(std::io::Error::other("it is larger than 1 MiB"));
            }
            Ok(Some(bytes))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Why the host's settings cannot be used. No variant carries a setting's value.
#[derive(Debug, thiserror::Error)]
pub enum HostConfigError {
    /// A pip or uv configuration file is not UTF-8, or not valid INI or TOML.
    #[error(
        "the package settings in {} cannot be read{}: {reason}. Fix the file, or build with \
         --no-host-config (or --pip-config FILE)",
        path.display(),
        line.map(|line| format!(" (line {line})")).unwrap_or_default()
    )]
    Malformed {
        /// The pip or uv configuration file.
        path: PathBuf,
        /// The 1-based line of the fault; `None` when the whole file is at fault (not UTF-8)
        /// or the parser gave no position.
        line: Option<usize>,
        /// What is wrong, such as "it is not UTF-8 text" or "it is not valid TOML"; never
        /// quotes the file, whose lines may hold a password.
        reason: &'static str,
    },

    /// A configuration or CA file exists but cannot be read.
    #[error(
        "cannot read {}: {source}. Fix its permissions, or build with --no-host-config (or \
         --pip-config FILE)",
        path.display()
    )]
    Unreadable {
        /// The file that could not be read.
        path: PathBuf,
        /// The reader's error, such as permission denied or larger than 1 MiB.
        #[source]
        source: std::io::Error,
    },

    /// A file named explicitly (`UV_CONFIG_FILE`, or a CA file from pip's `cert`,
    /// `REQUESTS_CA_BUNDLE` or `SSL_CERT_FILE`) does not exist.
    #[error(
        "{} (named by {named_by}) does not exist; fix {named_by}, or build with --no-host-config",
        path.display()
    )]
    Missing {
        /// The absolute path that was named (`~` expanded, relative paths taken from the
        /// current folder).
        path: PathBuf,
        /// What named it: a file path, or "the variable NAME".
        named_by: String,
    },

    /// A setting's value cannot go into the build's pip configuration (for example an index
    /// that is not an http:// or https:// address).
    #[error(
        "the setting {key} from {origin} {problem}. Fix it, or build with --no-host-config (or \
         --pip-config FILE)"
    )]
    BadValue {
        /// The setting's pip name, such as `index-url` or `extra-index-url`.
        key: &'static str,
        /// Where the value came from: a file path, or "the variable NAME".
        origin: String,
        /// What is wrong with it, as a predicate following the setting ("holds a control
        /// character"); never the value itself.
        problem: String,
    },

    /// uv's settings use an index feature pip cannot follow the way uv does (extra, explicit
    /// or per-package indexes, more than one default index); discovery fails rather than
    /// carry over part of them.
    #[error(
        "uv's settings in {origin} use {what}, which pip cannot follow the way uv does. Write a \
         pip configuration for the build and pass it with --pip-config FILE, or build with \
         --no-host-config"
    )]
    Untranslatable {
        /// The uv feature in words, such as "an extra index (extra-index-url)".
        what: String,
        /// Where it was found: a file path, or "the variable NAME".
        origin: String,
    },
}

/// The host's settings for the build stage.
#[derive(Clone, Default)]
pub struct HostSettings {
    /// The merged pip configuration; `None` when there is nothing to put in one.
    pub pip_conf: Option<SecretString>,
    /// The CA bundle pip should trust.
    pub ca_file: Option<PathBuf>,
    /// How many settings came from pip's configuration and from uv's.
    pub from_pip: usize,
    /// How many settings of the merged configuration came from uv's configuration or `UV_*`
    /// variables; 0 whenever pip's own settings name an index.
    pub from_uv: usize,
    /// What was found and left out, in words (no values).
    pub left_out: Vec<String>,
}

impl std::fmt::Debug for HostSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostSettings")
            .field("from_pip", &self.from_pip)
            .field("from_uv", &self.from_uv)
            .field("ca_file", &self.ca_file)
            .finish_non_exhaustive()
    }
}

impl HostSettings {
    /// Nothing was found.
    pub fn is_empty(&self) -> bool {
        self.pip_conf.is_none() && self.ca_file.is_none()
    }

    /// "Using the host's package index settings (pip: 2 settings, a CA certificate)", or
    /// `None` when nothing was found. Names no value.
    pub fn summary(&self) -> Option<String> {
        let count = |tool: &str, n: usize| match n {
            0 => None,
            1 => Some(format!("{tool}: 1 setting")),
            n => Some(format!("{tool}: {n} settings")),
        };
        let parts: Vec<String> = [
            count("pip", self.from_pip),
            count("uv", self.from_uv),
            self.ca_file.as_ref().map(|_| "a CA certificate".to_owned()),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!parts.is_empty()).then(|| {
            format!(
                "Using the host's package index settings ({})",
                parts.join(", ")
            )
        })
    }
}

/// Finds the host's settings.
pub fn discover(inputs: &HostInputs<'_>) -> Result<HostSettings, HostConfigError> {
    let mut merged = pip::discover(inputs)?;
    let pip_keys: Vec<Key> = merged.keys().copied().collect();
    if !pip_keys.iter().any(|key| key.is_index()) {
        for (key, value) in uv::discover(inputs)? {
            match merged.get_mut(&key) {
                Some(existing) if key.is_list() => {
                    existing.text.push(' ');
                    existing.text.push_str(&value.text);
                }
                Some(_) => {}
                None => {
                    merged.insert(key, value);
                }
            }
        }
    }
    let checked = settings::check(&merged)?;
    let from_pip = checked
        .lines
        .iter()
        .filter(|(key, _)| pip_keys.contains(key))
        .count();
    let from_uv = checked.lines.len() - from_pip;
    let ca_file = ca_file(inputs, checked.cert.as_ref())?;
    Ok(HostSettings {
        pip_conf: (!checked.lines.is_empty())
            .then(|| SecretString::from(settings::render(&checked.lines))),
        ca_file,
        from_pip,
        from_uv,
        left_out: checked.left_out,
    })
}

/// Every setting this machine's pip reads for `pip install` (its configuration files and
/// `PIP_*` variables, in pip's order), for the unsafe-local environment's installer.
pub fn pip_install_settings(
    inputs: &HostInputs<'_>,
) -> Result<Vec<hailer_marimo::PipSetting>, HostConfigError> {
    Ok(pip::every_setting(inputs)?
        .into_iter()
        .map(|(name, value)| hailer_marimo::PipSetting {
            name,
            value: value.text,
            origin: value.origin.to_string(),
        })
        .collect())
}

/// pip's `cert`, else `REQUESTS_CA_BUNDLE`, else `SSL_CERT_FILE`; it must be readable.
fn ca_file(
    inputs: &HostInputs<'_>,
    cert: Option<&Sourced>,
) -> Result<Option<PathBuf>, HostConfigError> {
    let chosen = cert.cloned().or_else(|| {
        ["REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"]
            .into_iter()
            .find_map(|name| {
                inputs.var(name).map(|value| Sourced {
                    text: value.to_owned(),
                    origin: Origin::Variable(name.to_owned()),
                })
            })
    });
    let Some(chosen) = chosen else {
        return Ok(None);
    };
    let path = inputs.absolute(Path::new(chosen.text.trim()));
    match inputs.read_file(&path)? {
        Some(_) => Ok(Some(path)),
        None => Err(HostConfigError::Missing {
            path,
            named_by: chosen.origin.to_string(),
        }),
    }
}
