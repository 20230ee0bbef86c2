//! Which data folder a docker kernel may mount (read-only).
//!
//! The data folder is the only folder of the machine a docker kernel sees, so it must not hand
//! notebook code Hailer's own files or the user's credentials. It may not be, or contain, a
//! drive root, the home folder, the workspace, `.hailer/`, the configuration file or the
//! context, skills and prompts folders; it may not be, contain or sit inside `.hailer/` or a
//! folder that holds credentials (`~/.config`, `~/.ssh`, `~/.aws`, `~/.azure`, `~/.gnupg`,
//! `~/.docker`, `~/.kube`). Symlinks are followed before comparing.

use std::fmt;
use std::path::{Component, Path, PathBuf, Prefix};

use crate::paths;

/// Folders under the home folder that hold credentials.
pub const CREDENTIAL_DIRS: [&str; 7] = [
    ".config", ".ssh", ".aws", ".azure", ".gnupg", ".docker", ".kube",
];

/// Hailer's own folder in the workspace.
pub const STATE_DIR: &str = ".hailer";

/// What a refused data folder would expose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exposed {
    Home,
    Workspace,
    /// The workspace's `.hailer/`.
    HailerState,
    ConfigFile,
    /// The context, skills or prompts folder.
    HailerFolder,
    /// A folder that holds credentials, by its name under the home folder.
    Credentials(&'static str),
}

/// How the data folder relates to what it would expose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    Is,
    Contains,
    Inside,
}

/// Why a data folder cannot be mounted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountReason {
    /// A Windows network share (`\\server\share`).
    NetworkShare,
    /// The root of a drive or of the file system.
    DriveRoot,
    Exposes {
        what: Exposed,
        path: PathBuf,
        relation: Relation,
    },
}

/// A refused data folder.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct MountRefusal {
    /// The data folder, with symlinks followed.
    pub data_dir: PathBuf,
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
            Exposed::Credentials(name) => write!(f, "~/{name}, which holds credentials"),
        }
    }
}

/// Checks a data folder against the mount rules. `hailer_dirs` are the context, skills and
/// prompts folders. Paths may be relative to the current folder; symlinks in the parts that
/// exist are followed.
pub fn check_data_dir_mount(
    data_dir: &Path,
    workspace: &Path,
    home: Option<&Path>,
    config_path: Option<&Path>,
    hailer_dirs: &[&Path],
) -> Result<(), MountRefusal> {
    let data = paths::resolve_existing(data_dir);
    let refuse = |reason| {
        Err(MountRefusal {
            data_dir: data.clone(),
            reason,
        })
    };
    if is_network_share(data_dir) || is_network_share(&data) {
        return refuse(MountReason::NetworkShare);
    }
    if data.parent().is_none() {
        return refuse(MountReason::DriveRoot);
    }

    let workspace = paths::resolve_existing(workspace);
    let home = home.map(paths::resolve_existing);
    let mut never_is_or_contains: Vec<(Exposed, PathBuf)> = Vec::new();
    if let Some(home) = &home {
        never_is_or_contains.push((Exposed::Home, home.clone()));
    }
    never_is_or_contains.push((Exposed::Workspace, workspace.clone()));
    if let Some(config) = config_path {
        never_is_or_contains.push((Exposed::ConfigFile, paths::resolve_existing(config)));
    }
    for dir in hailer_dirs {
        never_is_or_contains.push((Exposed::HailerFolder, paths::resolve_existing(dir)));
    }
    for (what, path) in never_is_or_contains {
        if let Some(relation @ (Relation::Is | Relation::Contains)) = relation(&data, &path) {
            return refuse(MountReason::Exposes {
                what,
                path,
                relation,
            });
        }
    }

    let mut never_touches: Vec<(Exposed, PathBuf)> =
        vec![(Exposed::HailerState, workspace.join(STATE_DIR))];
    if let Some(home) = &home {
        for name in CREDENTIAL_DIRS {
            never_touches.push((
                Exposed::Credentials(name),
                paths::resolve_existing(&home.join(name)),
            ));
        }
    }
    for (what, path) in never_touches {
        if let Some(relation) = relation(&data, &path) {
            return refuse(MountReason::Exposes {
                what,
                path,
                relation,
            });
        }
    }
    Ok(())
}

fn relation(data: &Path, other: &Path) -> Option<Relation> {
    if data == other {
        Some(Relation::Is)
    } else if other.starts_with(data) {
        Some(Relation::Contains)
    } else if data.starts_with(other) {
        Some(Relation::Inside)
    } else {
        None
    }
}

fn is_network_share(path: &Path) -> bool {
    matches!(
        path.components().next(),
        Some(Component::Prefix(prefix))
            if matches!(prefix.kind(), Prefix::UNC(..) | Prefix::VerbatimUNC(..))
    )
}
