//! Which data folder a docker kernel may mount (read-only).
//!
//! The data folder is the only folder of the machine a docker kernel sees, so it must not hand
//! notebook code Hailer's own files or the user's credentials. It may not be, or contain, a
//! drive root, the home folder, the workspace, `.hailer/`, the configuration file or the
//! context, skills and prompts folders; it may not be, contain or sit inside `.hailer/` or a
//! folder that holds credentials (`~/.config`, `~/.ssh`, `~/.aws`, `~/.azure`, `~/.gnupg`,
//! `~/.docker`, `~/.kube`; on macOS also the credential folders of `~/Library`; on Windows
//! `%APPDATA%` and `%LOCALAPPDATA%`, whose temporary folder is fine, both under the profile and
//! where the system says they are when they are redirected elsewhere, see [`AppDataDirs`]). A
//! network share (`\\server\share`) cannot be mounted at all. Symlinks are followed before
//! comparing.
//!
//! [`check_data_dir_mount`] resolves the folders on this machine; [`credential_folders`] lists
//! the credential folders and [`judge`] decides, as pure functions of the system and the
//! folders, so every system's rules are tested anywhere.

use std::fmt;
use std::path::{Path, PathBuf};

use hailer_platform::Bases;
use hailer_platform::Os;
use hailer_platform::{PathModel, Root, join_text};
use serde::{Deserialize, Serialize};

use crate::paths;

/// Folders under the home folder that hold credentials, on every system (`/` separated).
pub(crate) const CREDENTIAL_DIRS: [&str; 7] = [
    ".config", ".ssh", ".aws", ".azure", ".gnupg", ".docker", ".kube",
];
/// macOS's folders under `~/Library` that hold keys, tokens and app secrets.
pub(crate) const MACOS_CREDENTIAL_DIRS: [&str; 5] = [
    "Library/Keychains",
    "Library/Application Support",
    "Library/Containers",
    "Library/Group Containers",
    "Library/Cookies",
];
/// Windows's application data folders (`%APPDATA%`, `%LOCALAPPDATA%`) under the profile.
pub(crate) const WINDOWS_CREDENTIAL_DIRS: [&str; 2] = ["AppData/Roaming", "AppData/Local"];
/// The one folder inside the credential folders where data may be: Windows's temporary folder.
pub(crate) const WINDOWS_TEMP_DIR: &str = "AppData/Local/Temp";

/// The credential folders of `os`, relative to the home folder.
pub(crate) fn credential_dirs(os: Os) -> Vec<&'static str> {
    let mut dirs = CREDENTIAL_DIRS.to_vec();
    match os {
        Os::Linux => {}
        Os::MacOs => dirs.extend(MACOS_CREDENTIAL_DIRS),
        Os::Windows => dirs.extend(WINDOWS_CREDENTIAL_DIRS),
    }
    dirs
}

/// Where this user's Windows application data folders are, as the system says: `%APPDATA%` and
/// `%LOCALAPPDATA%`, else their Known Folders. A redirected profile can put them outside
/// `<profile>\AppData`; the rules refuse them there as well as under the profile. Empty on
/// other systems.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppDataDirs {
    /// `%APPDATA%`, the roaming application data.
    pub roaming: Option<PathBuf>,
    /// `%LOCALAPPDATA%`, the local application data (its `Temp` folder may hold data).
    pub local: Option<PathBuf>,
}

impl AppDataDirs {
    /// From the system's base folders of `os` (see `hailer_platform::system_bases`):
    /// on Windows their config folder is `%APPDATA%` and their cache folder `%LOCALAPPDATA%`.
    pub fn from_bases(os: Os, bases: Option<&Bases>) -> Self {
        match (os, bases) {
            (Os::Windows, Some(bases)) => Self {
                roaming: Some(bases.config.clone()),
                local: Some(bases.cache.clone()),
            },
            _ => Self::default(),
        }
    }

    /// This user's, as this process finds them. The loader never calls this: whoever fills
    /// [`crate::LoadInputs`] does, as it finds the home folder.
    pub fn of_this_user() -> Self {
        Self::from_bases(Os::CURRENT, hailer_platform::system_bases().as_ref())
    }
}

/// The credential folders the rules compare, and the folders inside them where data may be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CredentialFolders {
    /// Each folder with the name of the credential folder it stands for.
    pub credentials: Vec<(&'static str, PathBuf)>,
    /// Folders inside them where data may be: the `Temp` folder of each `%LOCALAPPDATA%`.
    pub allowed: Vec<PathBuf>,
}

/// The credential folders of `os`, written as `os` writes paths: each of [`credential_dirs`]
/// under `home`, and on Windows also `app_data`'s folders where they are not the profile's own
/// (redirected), under the same names, with the `Temp` folder of each `%LOCALAPPDATA%` allowed.
pub(crate) fn credential_folders(
    os: Os,
    home: Option<&Path>,
    app_data: &AppDataDirs,
) -> CredentialFolders {
    let join = |base: &Path, relative: &str| {
        PathBuf::from(join_text(os, &base.to_string_lossy(), relative))
    };
    let mut folders = CredentialFolders::default();
    if let Some(home) = home {
        for name in credential_dirs(os) {
            folders.credentials.push((name, join(home, name)));
        }
        if os == Os::Windows {
            folders.allowed.push(join(home, WINDOWS_TEMP_DIR));
        }
    }
    if os != Os::Windows {
        return folders;
    }
    let model = |path: &Path| PathModel::parse(os, &path.to_string_lossy());
    let [roaming, local] = WINDOWS_CREDENTIAL_DIRS;
    for (name, real) in [(roaming, &app_data.roaming), (local, &app_data.local)] {
        // A relative value names no folder of its own (an unset or broken variable).
        let Some(real) = real
            .as_deref()
            .filter(|real| model(real).root != Root::Relative)
        else {
            continue;
        };
        let known = folders
            .credentials
            .iter()
            .any(|(_, path)| model(path.as_path()).same_as(&model(real)));
        if known {
            continue;
        }
        folders.credentials.push((name, real.to_path_buf()));
        if name == local {
            folders.allowed.push(join(real, "Temp"));
        }
    }
    folders
}

/// Hailer's own folder in the workspace.
pub(crate) const STATE_DIR: &str = hailer_platform::STATE_FOLDER_NAME;

/// What a refused data folder would expose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exposed {
    /// The user's home folder.
    Home,
    /// The workspace folder.
    Workspace,
    /// The workspace's `.hailer/`.
    HailerState,
    /// The configuration file in use.
    ConfigFile,
    /// The context, skills or prompts folder.
    HailerFolder,
    /// A folder that holds credentials, by its name under the home folder.
    Credentials(&'static str),
}

/// How the data folder relates to what it would expose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// The data folder is that folder (or file) itself.
    Is,
    /// The data folder is a parent of it.
    Contains,
    /// The data folder lies somewhere beneath it.
    Inside,
}

/// Why a data folder cannot be mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountReason {
    /// A Windows network share (`\\server\share`).
    NetworkShare,
    /// The root of a drive or of the file system.
    DriveRoot,
    /// The data folder is, contains or lies inside a folder or file notebook code must not see.
    Exposes {
        /// What would be exposed.
        what: Exposed,
        /// Where that is on this machine, with symlinks followed.
        path: PathBuf,
        /// How the data folder relates to `path`.
        relation: Relation,
    },
}

/// A refused data folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct MountRefusal {
    /// The data folder, with symlinks followed.
    pub data_dir: PathBuf,
    /// Which rule refused it.
    pub reason: MountReason,
}

impl MountRefusal {
    /// What is wrong, naming both folders.
    pub fn message(&self) -> String {
        let data = self.data_dir.display();
        match &self.reason {
            MountReason::NetworkShare => {
                format!(
                    "the data folder {data} is on a network share, which a docker kernel cannot mount"
                )
            }
            MountReason::DriveRoot => {
                format!(
                    "the data folder {data} is the root of a drive, which would expose the whole disk to notebook code"
                )
            }
            MountReason::Exposes {
                what,
                path,
                relation,
            } => {
                let relation = match relation {
                    Relation::Is => "is",
                    Relation::Contains => "contains",
                    Relation::Inside => "is inside",
                };
                format!(
                    "the data folder {data} {relation} {} ({}), which notebook code must not see",
                    what,
                    path.display()
                )
            }
        }
    }

    /// How to fix it.
    pub fn hint(&self) -> &'static str {
        match self.reason {
            MountReason::NetworkShare => {
                "Copy the data to a folder on a local disk and set [hailer].data_dir to it."
            }
            _ => {
                "Set [hailer].data_dir to a folder that holds only data, such as \"data\" in the workspace (the default)."
            }
        }
    }
}

impl fmt::Display for Exposed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exposed::Home => write!(f, "your home folder"),
            Exposed::Workspace => write!(f, "the workspace"),
            Exposed::HailerState => write!(f, "Hailer's .hailer folder"),
            Exposed::ConfigFile => write!(f, "the configuration file"),
            Exposed::HailerFolder => write!(f, "Hailer's context, skills or prompts folder"),
            Exposed::Credentials("AppData/Roaming") => {
                write!(f, "%APPDATA%, which holds credentials")
            }
            Exposed::Credentials("AppData/Local") => {
                write!(f, "%LOCALAPPDATA%, which holds credentials")
            }
            Exposed::Credentials(name) => write!(f, "~/{name}, which holds credentials"),
        }
    }
}

/// The folders the rules compare, each resolved (symlinks followed) on the machine.
#[derive(Debug, Clone, Default)]
pub struct MountFolders {
    /// The data folder as configured, before symlinks are followed; a network share is
    /// refused whether this or [`Self::data`] names one.
    pub data_as_given: PathBuf,
    /// The data folder, resolved.
    pub data: PathBuf,
    /// The workspace folder; its `.hailer/` folder is derived from it.
    pub workspace: PathBuf,
    /// The user's home folder; `None` when it is unknown, which leaves [`Self::credentials`]
    /// only the redirected application data folders.
    pub home: Option<PathBuf>,
    /// The configuration file in use; `None` when there is none and the defaults apply.
    pub config_path: Option<PathBuf>,
    /// The context, skills and prompts folders.
    pub hailer_dirs: Vec<PathBuf>,
    /// The credential folders of this machine, each with its resolved path.
    pub credentials: Vec<(&'static str, PathBuf)>,
    /// Folders inside the credential folders where data may be (Windows's temporary folders).
    pub allowed: Vec<PathBuf>,
}

/// Checks a data folder against the mount rules of this system. `hailer_dirs` are the context,
/// skills and prompts folders; `app_data` where Windows's application data folders really are.
/// Paths may be relative to the current folder; symlinks in the parts that exist are followed.
pub fn check_data_dir_mount(
    data_dir: &Path,
    workspace: &Path,
    home: Option<&Path>,
    config_path: Option<&Path>,
    hailer_dirs: &[&Path],
    app_data: &AppDataDirs,
) -> Result<(), MountRefusal> {
    let os = Os::CURRENT;
    let credential = credential_folders(os, home, app_data);
    let folders = MountFolders {
        data_as_given: data_dir.to_path_buf(),
        data: paths::resolve_existing(data_dir),
        workspace: paths::resolve_existing(workspace),
        home: home.map(paths::resolve_existing),
        config_path: config_path.map(paths::resolve_existing),
        hailer_dirs: hailer_dirs
            .iter()
            .map(|d| paths::resolve_existing(d))
            .collect(),
        credentials: credential
            .credentials
            .into_iter()
            .map(|(name, path)| (name, paths::resolve_existing(&path)))
            .collect(),
        allowed: credential
            .allowed
            .iter()
            .map(|path| paths::resolve_existing(path))
            .collect(),
    };
    judge(os, &folders)
}

/// The mount rules of `os` over folders resolved there.
pub fn judge(os: Os, folders: &MountFolders) -> Result<(), MountRefusal> {
    let model = |path: &Path| PathModel::parse(os, &path.to_string_lossy());
    let data = model(&folders.data);
    let refuse = |reason| {
        Err(MountRefusal {
            data_dir: folders.data.clone(),
            reason,
        })
    };
    if model(&folders.data_as_given).is_share() || data.is_share() {
        return refuse(MountReason::NetworkShare);
    }
    if data.is_root() {
        return refuse(MountReason::DriveRoot);
    }

    let mut never_is_or_contains: Vec<(Exposed, &PathBuf)> = Vec::new();
    if let Some(home) = &folders.home {
        never_is_or_contains.push((Exposed::Home, home));
    }
    never_is_or_contains.push((Exposed::Workspace, &folders.workspace));
    if let Some(config) = &folders.config_path {
        never_is_or_contains.push((Exposed::ConfigFile, config));
    }
    for dir in &folders.hailer_dirs {
        never_is_or_contains.push((Exposed::HailerFolder, dir));
    }
    for (what, path) in never_is_or_contains {
        if let Some(relation @ (Relation::Is | Relation::Contains)) = relation(&data, &model(path))
        {
            return refuse(MountReason::Exposes {
                what,
                path: path.clone(),
                relation,
            });
        }
    }

    // Joined as `os` writes paths (not with the host's separator), so the rules read the same on
    // every host.
    let state = PathBuf::from(join_text(
        os,
        &folders.workspace.to_string_lossy(),
        STATE_DIR,
    ));
    let mut never_touches: Vec<(Exposed, &PathBuf)> = vec![(Exposed::HailerState, &state)];
    for (name, path) in &folders.credentials {
        never_touches.push((Exposed::Credentials(name), path));
    }
    let allowed = |data: &PathModel| {
        folders
            .allowed
            .iter()
            .any(|dir| data.starts_with(&model(dir)))
    };
    for (what, path) in never_touches {
        match relation(&data, &model(path)) {
            Some(Relation::Inside) if allowed(&data) => {}
            Some(relation) => {
                return refuse(MountReason::Exposes {
                    what,
                    path: path.clone(),
                    relation,
                });
            }
            None => {}
        }
    }
    Ok(())
}

fn relation(data: &PathModel, other: &PathModel) -> Option<Relation> {
    if data.same_as(other) {
        Some(Relation::Is)
    } else if other.starts_with(data) {
        Some(Relation::Contains)
    } else if data.starts_with(other) {
        Some(Relation::Inside)
    } else {
        None
    }
}

#[cfg(test)]
#[path = "mount_rules_tests.rs"]
mod tests;
