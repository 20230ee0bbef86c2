//! Which program fills the managed environment: uv when it is on `PATH` (much faster), with
//! this machine's pip settings carried over in uv's terms; pip when uv is not there, or when
//! pip's settings hold one uv cannot take.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::pip_to_uv::{PipSetting, UvOptions, translate};

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
    /// pip's settings for uv, when uv is chosen (empty offline: a wheelhouse reads no index).
    pub uv_options: UvOptions,
}

/// Chooses the installer from the `PATH`-style `search_path` and this machine's pip settings
/// (`pip`: what pip would read for `pip install`, or why they could not be read).
///
/// An offline install from a wheelhouse reads no index, so pip's settings do not matter then.
pub fn choose_installer(
    search_path: Option<&OsStr>,
    pip: &Result<Vec<PipSetting>, String>,
    offline: bool,
    exists: &dyn Fn(&Path) -> bool,
) -> InstallerChoice {
    let Some(uv) = search_path.and_then(|path| find_on_path("uv", path, exists)) else {
        return InstallerChoice {
            installer: Installer::Pip,
            reason: "with pip (uv is not on PATH)".to_owned(),
            uv_options: UvOptions::default(),
        };
    };
    let uv_options = if offline {
        UvOptions::default()
    } else {
        let translated = match pip {
            Ok(settings) => translate(settings),
            Err(problem) => Err(format!("pip's settings, which cannot be read: {problem}")),
        };
        match translated {
            Ok(options) => options,
            Err(why) => {
                return InstallerChoice {
                    installer: Installer::Pip,
                    reason: format!("with pip, not uv: {why}"),
                    uv_options: UvOptions::default(),
                };
            }
        }
    };
    let reason = match uv_options.carried {
        0 => format!("with uv ({})", uv.display()),
        1 => format!("with uv ({}, with 1 of pip's settings)", uv.display()),
        n => format!("with uv ({}, with {n} of pip's settings)", uv.display()),
    };
    InstallerChoice {
        reason,
        installer: Installer::Uv(uv),
        uv_options,
    }
}

fn find_on_path(
    name: &str,
    search_path: &OsStr,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let name = hailer_platform::executable_name(hailer_platform::Os::CURRENT, name);
    std::env::split_paths(search_path)
        .map(|dir| dir.join(&name))
        .find(|candidate| exists(candidate))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn pip_says(pairs: &[(&str, &str)]) -> Result<Vec<PipSetting>, String> {
        Ok(pairs
            .iter()
            .map(|(name, value)| PipSetting {
                name: (*name).to_owned(),
                value: (*value).to_owned(),
                origin: "the variable PIP_X".to_owned(),
            })
            .collect())
    }

    #[test]
    fn uv_on_path_is_chosen_with_pips_settings_carried_over() {
        let path = std::env::join_paths(["/a", "/tools/bin"]).unwrap();
        let only_uv = |p: &Path| p == Path::new("/tools/bin/uv");
        let none = pip_says(&[]);
        let chosen = choose_installer(Some(&path), &none, false, &only_uv);
        assert_eq!(
            chosen.installer,
            Installer::Uv(PathBuf::from("/tools/bin/uv"))
        );
        assert_eq!(chosen.reason, "with uv (/tools/bin/uv)");

        let nothing = |_: &Path| false;
        let chosen = choose_installer(Some(&path), &none, false, &nothing);
        assert_eq!(chosen.installer, Installer::Pip);
        assert_eq!(chosen.reason, "with pip (uv is not on PATH)");
        assert_eq!(
            choose_installer(None, &none, false, &only_uv).installer,
            Installer::Pip
        );

        // A CA file and find-links, as a company machine has them: still uv.
        let company = pip_says(&[("cert", "/etc/ca.pem"), ("find-links", "/opt/wheels")]);
        let chosen = choose_installer(Some(&path), &company, false, &only_uv);
        assert!(matches!(chosen.installer, Installer::Uv(_)));
        assert!(
            chosen.reason.contains("with 2 of pip's settings"),
            "{}",
            chosen.reason
        );
        assert_eq!(chosen.uv_options.args, ["--find-links", "/opt/wheels"]);

        // A setting uv cannot take keeps pip, named.
        let client_cert = pip_says(&[("client-cert", "/etc/me.pem")]);
        let chosen = choose_installer(Some(&path), &client_cert, false, &only_uv);
        assert_eq!(chosen.installer, Installer::Pip);
        assert!(chosen.reason.contains("client-cert"), "{}", chosen.reason);
        // Offline, no index is read: uv, with nothing of pip's.
        let chosen = choose_installer(Some(&path), &client_cert, true, &only_uv);
        assert!(matches!(chosen.installer, Installer::Uv(_)));
        assert_eq!(chosen.uv_options, UvOptions::default());
        // Settings that cannot be read keep pip, saying why.
        let unreadable = Err("/etc/pip.conf is not UTF-8".to_owned());
        let chosen = choose_installer(Some(&path), &unreadable, false, &only_uv);
        assert_eq!(chosen.installer, Installer::Pip);
        assert!(chosen.reason.contains("/etc/pip.conf"), "{}", chosen.reason);
    }
}
