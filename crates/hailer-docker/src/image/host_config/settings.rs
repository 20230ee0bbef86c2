//! The package settings a build carries over, in pip's names, with where each came from.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use super::HostConfigError;

/// One pip setting the build stage may use. Nothing else is carried over: no keyring, no
/// client certificate, no install options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Key {
    IndexUrl,
    ExtraIndexUrl,
    NoIndex,
    FindLinks,
    TrustedHost,
    Proxy,
    Timeout,
    Retries,
    /// A CA bundle on this machine: it becomes the build's CA file, never a line of pip.conf.
    Cert,
}

impl Key {
    pub(super) const ALL: [Key; 9] = [
        Key::IndexUrl,
        Key::ExtraIndexUrl,
        Key::NoIndex,
        Key::FindLinks,
        Key::TrustedHost,
        Key::Proxy,
        Key::Timeout,
        Key::Retries,
        Key::Cert,
    ];

    /// The name in a pip configuration file.
    pub(super) fn pip_name(self) -> &'static str {
        match self {
            Key::IndexUrl => "index-url",
            Key::ExtraIndexUrl => "extra-index-url",
            Key::NoIndex => "no-index",
            Key::FindLinks => "find-links",
            Key::TrustedHost => "trusted-host",
            Key::Proxy => "proxy",
            Key::Timeout => "timeout",
            Key::Retries => "retries",
            Key::Cert => "cert",
        }
    }

    /// A name as pip normalises it (`Index_URL` is `index-url`).
    pub(super) fn from_pip_name(name: &str) -> Option<Key> {
        let normal = name.trim().to_lowercase().replace('_', "-");
        let normal = normal.strip_prefix("--").unwrap_or(&normal);
        // pip's other long name for its timeout.
        if normal == "default-timeout" {
            return Some(Key::Timeout);
        }
        Key::ALL.into_iter().find(|key| key.pip_name() == normal)
    }

    /// Several values separated by white space.
    pub(super) fn is_list(self) -> bool {
        matches!(self, Key::ExtraIndexUrl | Key::FindLinks | Key::TrustedHost)
    }

    /// Where packages come from; pip's settings for these win over uv's as a whole.
    pub(super) fn is_index(self) -> bool {
        matches!(
            self,
            Key::IndexUrl | Key::ExtraIndexUrl | Key::NoIndex | Key::FindLinks
        )
    }
}

/// Where a value came from, for messages; never the value itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    File(PathBuf),
    Variable(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File(path) => write!(f, "{}", path.display()),
            Origin::Variable(name) => write!(f, "the variable {name}"),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Sourced {
    pub text: String,
    pub origin: Origin,
}

impl fmt::Debug for Sourced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The value may carry a password.
        f.debug_struct("Sourced")
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

/// Settings by key; a later source replaces an earlier one's value.
pub(super) type Settings = BTreeMap<Key, Sourced>;

/// pip's truth values.
pub(super) fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "t" | "true" | "on" | "1" => Some(true),
        "n" | "no" | "f" | "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// An `http://` or `https://` address.
pub(super) fn is_web_address(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://")) && lower.len() > 8
}

/// The settings ready for the build stage: every value checked, the local find-links left
/// out, the CA file set apart.
#[derive(Default)]
pub(super) struct Checked {
    /// `name = value` lines in pip's names.
    pub lines: Vec<(Key, String)>,
    pub cert: Option<Sourced>,
    /// What was left out, in words (no values).
    pub left_out: Vec<String>,
}

/// Checks every value of `settings` and turns them into pip.conf lines.
pub(super) fn check(settings: &Settings) -> Result<Checked, HostConfigError> {
    let mut checked = Checked::default();
    for (&key, value) in settings {
        let bad = |problem: &str| HostConfigError::BadValue {
            key: key.pip_name(),
            origin: value.origin.to_string(),
            problem: problem.to_owned(),
        };
        let text = value.text.trim();
        if key.is_list() {
            let mut items = Vec::new();
            for item in text.split_whitespace() {
                if item.chars().any(char::is_control) {
                    return Err(bad("holds a control character"));
                }
                match key {
                    Key::ExtraIndexUrl if !is_web_address(item) => {
                        return Err(bad(
                            "names an index that is not an http:// or https:// address; a \
                             local index needs --wheelhouse or --pip-config",
                        ));
                    }
                    Key::FindLinks if !is_web_address(item) => {
                        checked.left_out.push(format!(
                            "a local find-links folder (from {}; use --wheelhouse for local wheels)",
                            value.origin
                        ));
                    }
                    _ => items.push(item.to_owned()),
                }
            }
            if !items.is_empty() {
                checked.lines.push((key, items.join(" ")));
            }
            continue;
        }
        if text.chars().any(char::is_control) {
            return Err(bad("holds a line break or another control character"));
        }
        match key {
            Key::IndexUrl if !is_web_address(text) => {
                return Err(bad(
                    "is not an http:// or https:// address; a local index needs --wheelhouse or \
                     --pip-config",
                ));
            }
            Key::Proxy if text.contains(char::is_whitespace) => {
                return Err(bad("holds white space"));
            }
            Key::Timeout if !text.parse::<f64>().is_ok_and(|t| t.is_finite() && t > 0.0) => {
                return Err(bad("is not a positive number of seconds"));
            }
            Key::Retries if text.parse::<u32>().is_err() => {
                return Err(bad("is not a whole number"));
            }
            Key::NoIndex => match parse_bool(text) {
                Some(true) => checked.lines.push((key, "true".to_owned())),
                Some(false) => {}
                None => return Err(bad("is not yes or no (true, false, 1, 0, on, off)")),
            },
            Key::Cert => {
                checked.cert = Some(value.clone());
            }
            _ => checked.lines.push((key, text.to_owned())),
        }
    }
    Ok(checked)
}

/// The pip configuration file for the build stage. `[install]` wins over whatever `[global]`
/// the base image brings.
pub(super) fn render(lines: &[(Key, String)]) -> String {
    let mut text = String::from(
        "# Package index settings found on the machine that built this image; read by the\n\
         # build stage only.\n[install]\n",
    );
    for (key, value) in lines {
        text.push_str(key.pip_name());
        text.push_str(" = ");
        text.push_str(value);
        text.push('\n');
    }
    text
}
