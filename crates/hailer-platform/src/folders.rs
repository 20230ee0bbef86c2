//! Where Hailer keeps its own files on each system. The system's base folders come from
//! `etcetera` (XDG variables on Linux, `~/Library` on macOS, the Known Folders on Windows);
//! [`layout`] decides, as a pure function, where Hailer's four folders go under them.
//!
//! | system  | config                          | data, state (logs), run                    |
//! |---------|---------------------------------|--------------------------------------------|
//! | Linux   | `$XDG_CONFIG_HOME/hailer`       | `$XDG_DATA_HOME/hailer`, `$XDG_STATE_HOME/hailer`, `$XDG_RUNTIME_DIR/hailer` (else `state/run`) |
//! | macOS   | `~/Library/Application Support/Hailer/config` | `.../Hailer/data`, `.../Hailer/state`, `.../Hailer/run` |
//! | Windows | `%APPDATA%\Hailer\config`        | `%LOCALAPPDATA%\Hailer\data`, `...\state`, `...\run` |
//!
//! On Windows the runtime folder (port and token) is in the local, non-roaming profile, which
//! only the user can open; the daemon also gives it an owner-only access list and checks it.

use std::path::{Path, PathBuf};

use crate::Os;

/// The system's base folders for one user, as `etcetera` reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases {
    /// XDG config; Windows: roaming app data; macOS: `~/Library/Preferences` (unused).
    pub config: PathBuf,
    /// XDG data; Windows: roaming app data; macOS: `~/Library/Application Support`.
    pub data: PathBuf,
    /// XDG cache; Windows: local app data; macOS: `~/Library/Caches`.
    pub cache: PathBuf,
    /// XDG state, when set (Linux only).
    pub state: Option<PathBuf>,
    /// XDG runtime, when set (Linux only).
    pub runtime: Option<PathBuf>,
}

/// Hailer's four folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Settings the user keeps: trust records, the credential file.
    pub config: PathBuf,
    /// What Hailer writes as it runs: the logs.
    pub state: PathBuf,
    /// What Hailer makes and keeps: managed environments, kernel records.
    pub data: PathBuf,
    /// The daemon's lock and runtime file (port and token), private to the user.
    pub runtime: PathBuf,
}

impl Layout {
    /// Every folder under one root, as `HAILER_HOME` asks.
    pub fn under(root: &Path) -> Self {
        Self {
            config: root.join("config"),
            state: root.join("state"),
            data: root.join("data"),
            runtime: root.join("run"),
        }
    }
}

/// Where Hailer's folders go on `os`: under `hailer_home` when it is set and not empty, else
/// under the system's `bases`.
pub fn layout(os: Os, hailer_home: Option<&Path>, bases: &Bases) -> Layout {
    if let Some(root) = hailer_home.filter(|root| !root.as_os_str().is_empty()) {
        return Layout::under(root);
    }
    match os {
        Os::Linux => {
            let data = bases.data.join("hailer");
            let state = bases
                .state
                .as_ref()
                .map_or_else(|| data.join("state"), |state| state.join("hailer"));
            let runtime = bases
                .runtime
                .as_ref()
                .map_or_else(|| state.join("run"), |runtime| runtime.join("hailer"));
            Layout {
                config: bases.config.join("hailer"),
                state,
                data,
                runtime,
            }
        }
        Os::MacOs => {
            let root = bases.data.join("Hailer");
            Layout {
                config: root.join("config"),
                ..Layout::under(&root)
            }
        }
        Os::Windows => {
            let local = bases.cache.join("Hailer");
            Layout {
                config: bases.config.join("Hailer").join("config"),
                ..Layout::under(&local)
            }
        }
    }
}

/// This user's base folders on this system; `None` without a home folder.
pub fn system_bases() -> Option<Bases> {
    use etcetera::BaseStrategy as _;
    let strategy = etcetera::base_strategy::choose_native_strategy().ok()?;
    Some(Bases {
        config: strategy.config_dir(),
        data: strategy.data_dir(),
        cache: strategy.cache_dir(),
        state: strategy.state_dir(),
        runtime: strategy.runtime_dir(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slashes(path: &Path) -> String {
        path.to_string_lossy().replace('\\', "/")
    }

    fn bases(
        config: &str,
        data: &str,
        cache: &str,
        state: Option<&str>,
        runtime: Option<&str>,
    ) -> Bases {
        Bases {
            config: PathBuf::from(config),
            data: PathBuf::from(data),
            cache: PathBuf::from(cache),
            state: state.map(PathBuf::from),
            runtime: runtime.map(PathBuf::from),
        }
    }

    #[test]
    fn each_system_puts_the_folders_where_its_users_look() {
        let linux_xdg = bases(
            "/home/zoë/.config",
            "/home/zoë/.local/share",
            "/home/zoë/.cache",
            Some("/home/zoë/.local/state"),
            Some("/run/user/1000"),
        );
        let linux_bare = bases(
            "/home/zoë/.config",
            "/home/zoë/.local/share",
            "/home/zoë/.cache",
            None,
            None,
        );
        let mac = bases(
            "/Users/Zoë Ås/Library/Preferences",
            "/Users/Zoë Ås/Library/Application Support",
            "/Users/Zoë Ås/Library/Caches",
            None,
            None,
        );
        let windows = bases(
            r"C:\Users\Zoë Ås\AppData\Roaming",
            r"C:\Users\Zoë Ås\AppData\Roaming",
            r"C:\Users\Zoë Ås\AppData\Local",
            None,
            None,
        );
        let table = [
            (
                Os::Linux,
                &linux_xdg,
                [
                    "/home/zoë/.config/hailer",
                    "/home/zoë/.local/state/hailer",
                    "/home/zoë/.local/share/hailer",
                    "/run/user/1000/hailer",
                ],
            ),
            (
                Os::Linux,
                &linux_bare,
                [
                    "/home/zoë/.config/hailer",
                    "/home/zoë/.local/share/hailer/state",
                    "/home/zoë/.local/share/hailer",
                    "/home/zoë/.local/share/hailer/state/run",
                ],
            ),
            (
                Os::MacOs,
                &mac,
                [
                    "/Users/Zoë Ås/Library/Application Support/Hailer/config",
                    "/Users/Zoë Ås/Library/Application Support/Hailer/state",
                    "/Users/Zoë Ås/Library/Application Support/Hailer/data",
                    "/Users/Zoë Ås/Library/Application Support/Hailer/run",
                ],
            ),
            (
                Os::Windows,
                &windows,
                [
                    "C:/Users/Zoë Ås/AppData/Roaming/Hailer/config",
                    "C:/Users/Zoë Ås/AppData/Local/Hailer/state",
                    "C:/Users/Zoë Ås/AppData/Local/Hailer/data",
                    "C:/Users/Zoë Ås/AppData/Local/Hailer/run",
                ],
            ),
        ];
        for (os, bases, [config, state, data, runtime]) in table {
            let layout = layout(os, None, bases);
            assert_eq!(slashes(&layout.config), config, "{os:?}");
            assert_eq!(slashes(&layout.state), state, "{os:?}");
            assert_eq!(slashes(&layout.data), data, "{os:?}");
            assert_eq!(slashes(&layout.runtime), runtime, "{os:?}");
        }
    }

    #[test]
    fn hailer_home_moves_every_folder_on_every_system() {
        let any = bases("/c", "/d", "/k", Some("/s"), Some("/r"));
        for os in Os::ALL {
            let moved = layout(os, Some(Path::new("/tmp/h ö")), &any);
            assert_eq!(moved, Layout::under(Path::new("/tmp/h ö")), "{os:?}");
            assert_eq!(slashes(&moved.runtime), "/tmp/h ö/run");
            // An empty HAILER_HOME is no HAILER_HOME.
            assert_ne!(
                layout(os, Some(Path::new("")), &any).config,
                PathBuf::from("config")
            );
        }
    }
}
