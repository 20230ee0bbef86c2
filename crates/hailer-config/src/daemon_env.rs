//! The environment hailerd runs with: what it needs to run, to find Python and Docker, to go
//! through a proxy and to install packages, and Hailer's own settings; nothing else of the shell
//! that started it. Keys reach hailerd with the requests that need them and stay in its memory,
//! so a process that can read hailerd's environment (an unsafe-local kernel runs as the same
//! user) finds no secret there.

use std::ffi::{OsStr, OsString};

use crate::keys::looks_secret;

/// Names kept exactly (compared case-insensitively, as Windows does).
const KEPT_NAMES: &[&str] = &[
    // Running at all, and finding programs and folders.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TZ",
    "LANG",
    "LANGUAGE",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    // The OS credential store on Linux (Secret Service over D-Bus).
    "DBUS_SESSION_BUS_ADDRESS",
    // Windows.
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "USERNAME",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    // Docker.
    "DOCKER_HOST",
    "DOCKER_CONTEXT",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
    "DOCKER_API_VERSION",
    // Proxies and certificate authorities.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    // Finding Python as the shell does.
    "PYENV_ROOT",
    "PYENV_VERSION",
    // Diagnostics.
    "RUST_BACKTRACE",
];

/// Prefixes kept: Hailer's settings, the locale, and the package installers' settings (an
/// index, a cache, a certificate), each unless its name looks like a secret.
const KEPT_PREFIXES: &[&str] = &["HAILER_", "LC_", "PIP_", "UV_"];

/// Whether hailerd keeps the variable `name`.
pub(crate) fn daemon_keeps(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    if looks_secret(&upper) {
        return false;
    }
    KEPT_NAMES.contains(&upper.as_str())
        || KEPT_PREFIXES.iter().any(|prefix| upper.starts_with(prefix))
}

/// The variables of `vars` hailerd keeps, in their order.
pub fn daemon_environment(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| name.to_str().is_some_and(daemon_keeps))
        .collect()
}

/// Whether every variable of `vars` is one hailerd keeps.
pub fn is_daemon_environment<'a>(names: impl IntoIterator<Item = &'a OsStr>) -> bool {
    names
        .into_iter()
        .all(|name| name.to_str().is_some_and(daemon_keeps))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_hailerd_keeps_and_what_it_leaves() {
        let cases = [
            ("PATH", true),
            ("Path", true),
            ("HOME", true),
            ("LC_ALL", true),
            ("HAILER_HOME", true),
            ("HAILER_KERNEL", true),
            ("DOCKER_HOST", true),
            ("DOCKER_CONTEXT", true),
            ("DOCKER_CONFIG", true),
            ("docker_context", true),
            ("DOCKER_CERT_PATH", true),
            ("DOCKER_CONTEXTS", false),
            ("https_proxy", true),
            ("no_proxy", true),
            ("PIP_INDEX_URL", true),
            ("UV_CACHE_DIR", true),
            ("SSL_CERT_FILE", true),
            ("DBUS_SESSION_BUS_ADDRESS", true),
            ("LOCALAPPDATA", true),
            ("OPENAI_API_KEY", false),
            ("AWS_SECRET_ACCESS_KEY", false),
            ("GITHUB_TOKEN", false),
            ("MY_PASSWORD", false),
            ("DATABASE_URL", false),
            ("HAILER_SOMETHING_TOKEN", false),
            ("UV_INDEX_PRIVATE_PASSWORD", false),
            ("PIP_SECRET", false),
            ("PYTHONPATH", false),
            ("LD_PRELOAD", false),
            ("", false),
        ];
        for (name, kept) in cases {
            assert_eq!(daemon_keeps(name), kept, "{name}");
        }
    }

    #[test]
    fn the_environment_keeps_order_and_drops_the_rest() {
        let vars = [
            ("PATH", "/usr/bin"),
            ("OPENAI_API_KEY", "sk-planted"),
            ("HAILER_HOME", "/h"),
            ("MY_PASSWORD", "hunter2"),
        ]
        .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let kept = daemon_environment(vars.clone());
        assert_eq!(
            kept,
            vec![
                (OsString::from("PATH"), OsString::from("/usr/bin")),
                (OsString::from("HAILER_HOME"), OsString::from("/h")),
            ]
        );
        assert!(!is_daemon_environment(
            vars.iter().map(|(n, _)| n.as_os_str())
        ));
        assert!(is_daemon_environment(
            kept.iter().map(|(n, _)| n.as_os_str())
        ));
    }
}
