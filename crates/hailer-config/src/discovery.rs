//! Which folder is the workspace, and which file configures it.
//!
//! Workspace: `--workspace` > `HAILER_WORKSPACE` > the nearest of the current folder and its
//! parents holding `pyproject.toml`, `hailer.toml` or `.config/hailer/hailer.toml` > the current
//! folder. Configuration file: `--config` > `HAILER_CONFIG` (relative to the workspace) >
//! `hailer.toml` > `.config/hailer/hailer.toml` > none (built-in defaults).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::{ClientEnv, HAILER_CONFIG, HAILER_WORKSPACE};
use crate::inputs::Overrides;
use crate::paths;
use crate::problem::{Origin, Problem};

/// The configuration file's name in the workspace.
pub const CONFIG_FILE: &str = "hailer.toml";
/// The other place the configuration file may live, relative to the workspace.
pub(crate) const NESTED_CONFIG_FILE: &str = ".config/hailer/hailer.toml";
/// Files that mark a folder as a workspace.
pub(crate) const WORKSPACE_MARKERS: [&str; 3] = ["pyproject.toml", CONFIG_FILE, NESTED_CONFIG_FILE];

/// How the workspace was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkspaceSource {
    /// The client's `--workspace` flag named the folder.
    Flag,
    /// The client's `HAILER_WORKSPACE` variable named the folder.
    Environment,
    /// The folder holds this marker file.
    Marker {
        /// The marker found, relative to the workspace: `pyproject.toml`, [`CONFIG_FILE`] or
        /// `.config/hailer/hailer.toml`.
        file: PathBuf,
    },
    /// Nothing marked a workspace, so the current folder is used.
    CurrentFolder,
}

/// The workspace folder (absolute) and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// The workspace folder, with `.` and `..` folded away (symlinks are not followed).
    pub root: PathBuf,
    /// Which rule of the precedence chose `root`.
    pub found_by: WorkspaceSource,
}

/// Finds the workspace. A flag or variable naming a folder that does not exist is a problem.
pub fn find_workspace(
    cwd: &Path,
    overrides: &Overrides,
    env: &ClientEnv,
) -> Result<Workspace, Box<Problem>> {
    let chosen = overrides
        .workspace
        .as_ref()
        .map(|path| (path.clone(), WorkspaceSource::Flag))
        .or_else(|| {
            env.get(HAILER_WORKSPACE)
                .map(|path| (PathBuf::from(path), WorkspaceSource::Environment))
        });
    if let Some((path, found_by)) = chosen {
        let root = paths::absolute(cwd, &path);
        if !root.is_dir() {
            let (origin, fix) = match found_by {
                WorkspaceSource::Flag => (
                    Origin::Flag {
                        flag: "--workspace".to_owned(),
                    },
                    "Pass --workspace with an existing folder (`hailer init` sets one up).",
                ),
                _ => (
                    Origin::Environment {
                        variable: HAILER_WORKSPACE.to_owned(),
                    },
                    "Set HAILER_WORKSPACE to an existing folder, or unset it.",
                ),
            };
            return Err(Box::new(
                Problem::fatal(
                    origin,
                    format!(
                        "the workspace folder {} does not exist or is not a folder",
                        root.display()
                    ),
                    fix,
                )
                .with_value(path.display().to_string()),
            ));
        }
        return Ok(Workspace { root, found_by });
    }
    let cwd = paths::normalize(cwd);
    for folder in cwd.ancestors() {
        if let Some(marker) = WORKSPACE_MARKERS
            .iter()
            .find(|marker| folder.join(marker).is_file())
        {
            return Ok(Workspace {
                root: folder.to_path_buf(),
                found_by: WorkspaceSource::Marker {
                    file: PathBuf::from(marker),
                },
            });
        }
    }
    Ok(Workspace {
        root: cwd,
        found_by: WorkspaceSource::CurrentFolder,
    })
}

/// Finds the configuration file; `Ok(None)` means none exists and the defaults apply.
pub fn find_config_file(
    workspace: &Path,
    cwd: &Path,
    overrides: &Overrides,
    env: &ClientEnv,
) -> Result<Option<PathBuf>, Box<Problem>> {
    let chosen = match (&overrides.config, env.get(HAILER_CONFIG)) {
        (Some(flag), _) => Some((
            paths::absolute(cwd, flag),
            Origin::Flag {
                flag: "--config".to_owned(),
            },
            "Pass --config with the path of an existing file, or leave the flag out.",
        )),
        (None, Some(variable)) => Some((
            paths::absolute(workspace, Path::new(variable)),
            Origin::Environment {
                variable: HAILER_CONFIG.to_owned(),
            },
            "Set HAILER_CONFIG to an existing file (relative paths start at the workspace), or unset it.",
        )),
        (None, None) => None,
    };
    if let Some((path, origin, fix)) = chosen {
        if !path.is_file() {
            return Err(Box::new(
                Problem::fatal(
                    origin,
                    format!("the configuration file {} does not exist", path.display()),
                    fix,
                )
                .with_value(path.display().to_string()),
            ));
        }
        return Ok(Some(path));
    }
    Ok([CONFIG_FILE, NESTED_CONFIG_FILE]
        .iter()
        .map(|name| workspace.join(name))
        .find(|path| path.is_file()))
}
