//! The client's `HAILER_*` environment variables, as an explicit value.
//!
//! The daemon outlives the shell that started it, so its own environment is not the user's. The
//! loader therefore never reads the process environment: the client collects its variables with
//! [`ClientEnv::from_process`] and sends them along; the daemon passes them to the loader.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Points the loader at a configuration file (must exist; relative to the workspace).
pub const HAILER_CONFIG: &str = "HAILER_CONFIG";
/// Chooses the workspace folder (relative to the current folder).
pub const HAILER_WORKSPACE: &str = "HAILER_WORKSPACE";
/// Overrides `[model].name`.
pub const HAILER_MODEL: &str = "HAILER_MODEL";
/// Overrides `[model].provider`.
pub const HAILER_MODEL_PROVIDER: &str = "HAILER_MODEL_PROVIDER";
/// Overrides `[hailer].log_level`.
pub const HAILER_LOG_LEVEL: &str = "HAILER_LOG_LEVEL";
/// Overrides `[kernel].runtime`.
pub const HAILER_KERNEL: &str = "HAILER_KERNEL";
/// Overrides `[kernel].image`.
pub const HAILER_KERNEL_IMAGE: &str = "HAILER_KERNEL_IMAGE";

/// Overrides `[kernel].base_image`.
pub(crate) const HAILER_KERNEL_BASE_IMAGE: &str = "HAILER_KERNEL_BASE_IMAGE";
/// Overrides `[kernel].exec_timeout_secs`.
pub(crate) const HAILER_EXEC_TIMEOUT_SECS: &str = "HAILER_EXEC_TIMEOUT_SECS";

/// Variables earlier versions read that no longer do anything.
pub(crate) const RETIRED_VARIABLES: [&str; 5] = [
    "HAILER_MARIMO_URL",
    "HAILER_MARIMO_TOKEN",
    "HAILER_NOTEBOOK",
    "HAILER_NOTEBOOKS_DIR",
    "HAILER_DATA_DIR",
];

const PREFIX: &str = "HAILER_";

/// The client's `HAILER_*` variables. Only names starting with `HAILER_` are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClientEnv {
    vars: BTreeMap<String, String>,
}

impl ClientEnv {
    /// An empty environment: every setting comes from flags, the file or the defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Collects this process's `HAILER_*` variables (for the client side). Variables whose
    /// value is not valid Unicode are left out.
    pub fn from_process() -> Self {
        Self::from_pairs(std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }))
    }

    /// Keeps the `HAILER_*` pairs of any list of variables.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        let vars = pairs
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .filter(|(name, _)| name.starts_with(PREFIX))
            .collect();
        Self { vars }
    }

    /// Sets one variable (ignored unless it starts with `HAILER_`).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        if name.starts_with(PREFIX) {
            self.vars.insert(name, value.into());
        }
    }

    /// The value of a variable; an empty value counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.is_empty())
    }

    /// Every variable, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_hailer_variables_and_treats_empty_as_unset() {
        let env = ClientEnv::from_pairs([
            ("HAILER_MODEL", "m"),
            ("HAILER_KERNEL", ""),
            ("OPENAI_API_KEY", "secret"),
        ]);
        assert_eq!(env.get(HAILER_MODEL), Some("m"));
        assert_eq!(env.get(HAILER_KERNEL), None);
        assert_eq!(env.get("OPENAI_API_KEY"), None);
        assert_eq!(env.iter().count(), 2);
    }
}
