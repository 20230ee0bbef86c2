//! Which program fills the managed environment: uv when it is on `PATH` (much faster), pip
//! otherwise, and pip whenever this machine's pip settings name a package index that uv would
//! not read.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The program that creates and fills the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installer {
    /// `uv venv` and `uv pip install`, with this `uv`.
    Uv(PathBuf),
    /// `python -m venv` and the environment's own pip.
    Pip,
}

/// The installer chosen, and why, in words for the progress line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallerChoice {
    /// The program chosen.
    pub installer: Installer,
    /// Why, as a phrase that ends the progress line (`with uv (/usr/bin/uv)`, `with pip (uv is
    /// not on PATH)`).
    pub reason: String,
}

/// pip variables that point pip at a package index or change how it reaches one.
const PIP_INDEX_VARIABLES: [&str; 6] = [
    "PIP_CONFIG_FILE",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_TRUSTED_HOST",
];

/// Chooses the installer from the `PATH`-style `search_path`, the environment `env` (only the
/// `PIP_*` names and `HOME`/`XDG_CONFIG_HOME` are read) and the pip files that exist.
///
/// An offline install from a wheelhouse reads no index, so pip's settings do not matter then.
pub fn choose_installer(
    search_path: Option<&OsStr>,
    env: &BTreeMap<String, String>,
    offline: bool,
    exists: &dyn Fn(&Path) -> bool,
) -> InstallerChoice {
    let Some(uv) = search_path.and_then(|path| find_on_path("uv", path, exists)) else {
        return InstallerChoice {
            installer: Installer::Pip,
            reason: "with pip (uv is not on PATH)".to_owned(),
        };
    };
    if !offline && let Some(setting) = pip_index_setting(env, exists) {
        return InstallerChoice {
            installer: Installer::Pip,
            reason: format!(
                "with pip, not uv: {setting} sets pip's package index, which uv does not read"
            ),
        };
    }
    InstallerChoice {
        reason: format!("with uv ({})", uv.display()),
        installer: Installer::Uv(uv),
    }
}

/// The first pip setting of this machine that names an index: a variable, or a pip
/// configuration file in one of the places pip reads.
fn pip_index_setting(
    env: &BTreeMap<String, String>,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    if let Some(name) = PIP_INDEX_VARIABLES
        .iter()
        .find(|name| env.get(**name).is_some_and(|value| !value.is_empty()))
    {
        return Some((*name).to_owned());
    }
    let mut files = vec![
        PathBuf::from("/etc/pip.conf"),
        PathBuf::from("/etc/xdg/pip/pip.conf"),
    ];
    let config_home = env
        .get("XDG_CONFIG_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|home| Path::new(home).join(".config")));
    if let Some(config_home) = config_home {
        files.push(config_home.join("pip").join("pip.conf"));
    }
    if let Some(home) = env.get("HOME") {
        files.push(Path::new(home).join(".pip").join("pip.conf"));
    }
    if let Some(app_data) = env.get("APPDATA") {
        files.push(Path::new(app_data).join("pip").join("pip.ini"));
    }
    files
        .into_iter()
        .find(|file| exists(file))
        .map(|file| file.display().to_string())
}

fn find_on_path(
    name: &str,
    search_path: &OsStr,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let name = hailer_platform::program::executable_name(hailer_platform::Os::CURRENT, name);
    std::env::split_paths(search_path)
        .map(|dir| dir.join(&name))
        .find(|candidate| exists(candidate))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn uv_on_path_is_chosen_unless_pip_names_an_index() {
        let path = std::env::join_paths(["/a", "/tools/bin"]).unwrap();
        let only_uv = |p: &Path| p == Path::new("/tools/bin/uv");
        let home = env(&[("HOME", "/home/ann")]);
        let chosen = choose_installer(Some(&path), &home, false, &only_uv);
        assert_eq!(
            chosen.installer,
            Installer::Uv(PathBuf::from("/tools/bin/uv"))
        );
        assert!(chosen.reason.contains("with uv"), "{}", chosen.reason);

        let nothing = |_: &Path| false;
        let chosen = choose_installer(Some(&path), &home, false, &nothing);
        assert_eq!(chosen.installer, Installer::Pip);
        assert_eq!(chosen.reason, "with pip (uv is not on PATH)");
        assert_eq!(
            choose_installer(None, &home, false, &only_uv).installer,
            Installer::Pip
        );

        let mirror = env(&[
            ("HOME", "/home/ann"),
            ("PIP_INDEX_URL", "https://mirror/simple"),
        ]);
        let chosen = choose_installer(Some(&path), &mirror, false, &only_uv);
        assert_eq!(chosen.installer, Installer::Pip);
        assert!(chosen.reason.contains("PIP_INDEX_URL"), "{}", chosen.reason);
        // Offline, no index is read: uv again.
        let chosen = choose_installer(Some(&path), &mirror, true, &only_uv);
        assert!(matches!(chosen.installer, Installer::Uv(_)));
        // An empty variable sets nothing.
        let empty = env(&[("HOME", "/home/ann"), ("PIP_INDEX_URL", "")]);
        assert!(matches!(
            choose_installer(Some(&path), &empty, false, &only_uv).installer,
            Installer::Uv(_)
        ));
    }

    #[test]
    fn pip_files_where_pip_reads_them_keep_pip() {
        let path = std::env::join_paths(["/tools/bin"]).unwrap();
        for file in [
            "/etc/pip.conf",
            "/etc/xdg/pip/pip.conf",
            "/home/ann/.config/pip/pip.conf",
            "/home/ann/.pip/pip.conf",
            "/xdg/pip/pip.conf",
        ] {
            let exists = |p: &Path| p == Path::new("/tools/bin/uv") || p == Path::new(file);
            let vars = if file.starts_with("/xdg") {
                env(&[("HOME", "/home/ann"), ("XDG_CONFIG_HOME", "/xdg")])
            } else {
                env(&[("HOME", "/home/ann")])
            };
            let chosen = choose_installer(Some(&path), &vars, false, &exists);
            assert_eq!(chosen.installer, Installer::Pip, "{file}");
            assert!(chosen.reason.contains(file), "{}", chosen.reason);
        }
    }
}
