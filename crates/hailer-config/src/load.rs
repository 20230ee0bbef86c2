//! The entry points: [`load`] for starting, [`check`] for `hailer config check` and `doctor`.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::discovery::{Workspace, find_config_file, find_workspace};
use crate::document::{Document, MAX_CONFIG_BYTES, file_origin};
use crate::error::ConfigError;
use crate::inputs::{LoadInputs, Sources};
use crate::mount_rules::{AppDataDirs, MountRefusal, check_data_dir_mount};
use crate::paths;
use crate::problem::{Origin, Problem, Report};
use crate::schema::Config;
use crate::trust::{self, Trust};
use crate::validate::{self, Place, preflight};

/// A usable configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Loaded {
    /// The effective settings: defaults, then the file, then the environment, then the flags,
    /// with paths resolved and settings refused by trust dropped.
    pub config: Config,
    /// The file read, or `None` when no file exists and the defaults apply.
    pub config_path: Option<PathBuf>,
    /// The workspace folder and how it was found.
    pub workspace: Workspace,
    /// Where the overridable settings came from.
    pub sources: Sources,
    /// Problems that do not stop Hailer (shown at every start).
    pub warnings: Vec<Problem>,
    /// The home folder the paths were resolved with.
    pub home: Option<PathBuf>,
    /// Where the Windows application data folders are, for the data-folder rules.
    #[serde(default)]
    pub app_data: AppDataDirs,
    /// Whether the file's settings that need trust apply (those refused are already dropped).
    #[serde(default)]
    pub trust: Trust,
}

impl Loaded {
    /// The checks that look at the disk: notebook, folders, data-folder mount rules (docker),
    /// the Python for unsafe-local. Run them before every session start.
    pub fn preflight(&self) -> Report {
        preflight::check(
            &self.config,
            &preflight::Layout {
                workspace: &self.workspace.root,
                home: self.home.as_deref(),
                config_path: self.config_path.as_deref(),
                app_data: &self.app_data,
            },
        )
    }

    /// The docker data-folder rules for this configuration.
    pub fn check_data_dir_mount(&self) -> Result<(), MountRefusal> {
        let hailer = &self.config.hailer;
        check_data_dir_mount(
            &hailer.data_dir,
            &self.workspace.root,
            self.home.as_deref(),
            self.config_path.as_deref(),
            &[&hailer.context_dir, &hailer.skills_dir, &hailer.prompts_dir],
            &self.app_data,
        )
    }
}

/// Finds the workspace and the configuration file, reads it, applies the environment and the
/// flags, and validates everything that does not depend on the disk beyond the file itself.
/// Fails when anything is fatal; warnings travel in [`Loaded::warnings`].
pub fn load(inputs: &LoadInputs) -> Result<Loaded, ConfigError> {
    let (loaded, report) = load_with_report(inputs);
    match loaded {
        Some(loaded) if report.is_ok() => Ok(Loaded {
            warnings: report.warnings,
            ..loaded
        }),
        _ => Err(ConfigError {
            fatal: report.fatal,
            warnings: report.warnings,
        }),
    }
}

/// Every problem at once: the file, the environment, the flags, and the checks on disk
/// ([`Loaded::preflight`]). Never fails.
pub fn check(inputs: &LoadInputs) -> Report {
    let (loaded, mut report) = load_with_report(inputs);
    if let Some(loaded) = loaded {
        report.extend(loaded.preflight());
    }
    report
}

fn load_with_report(inputs: &LoadInputs) -> (Option<Loaded>, Report) {
    let mut report = Report::default();
    let cwd = paths::normalize(&inputs.cwd);
    let workspace = match find_workspace(&cwd, &inputs.overrides, &inputs.env) {
        Ok(workspace) => workspace,
        Err(problem) => {
            report.push(*problem);
            return (None, report);
        }
    };
    let config_path = match find_config_file(&workspace.root, &cwd, &inputs.overrides, &inputs.env)
    {
        Ok(path) => path,
        Err(problem) => {
            report.push(*problem);
            return (None, report);
        }
    };
    let home = inputs.home.as_deref().map(paths::normalize);
    let place = Place {
        workspace: &workspace.root,
        home: home.as_deref(),
    };

    let bytes = match &config_path {
        Some(path) => match read_limited(path) {
            Ok(bytes) => Some(bytes),
            Err(error) => {
                report.push(Problem::fatal(
                    file_origin(&paths::display_relative(&workspace.root, path), None),
                    format!("the configuration file cannot be read: {error}"),
                    "Check that the file exists and that you may read it.",
                ));
                return (None, report);
            }
        },
        None => None,
    };
    let label = config_path
        .as_deref()
        .map(|path| paths::display_relative(&workspace.root, path))
        .unwrap_or_default();
    let document = match bytes.as_deref().map(|bytes| Document::parse(bytes, &label)) {
        Some(Ok(document)) => Some(document),
        Some(Err(problem)) => {
            report.push(*problem);
            return (None, report);
        }
        None => None,
    };

    let mut file = validate::read_file(document.as_ref(), &place, &mut report);
    let sources =
        validate::overrides::apply(&mut file, &inputs.overrides, &inputs.env, &mut report);
    let trust = trust::apply(
        &mut file.config,
        config_path.as_deref(),
        &workspace.root,
        &sources,
        inputs.config_dir.as_deref(),
        &mut report,
    );
    sort_by_place(&mut report);
    let loaded = Loaded {
        config: file.config,
        config_path,
        workspace,
        sources,
        warnings: Vec::new(),
        home,
        app_data: inputs.app_data.clone(),
        trust,
    };
    (Some(loaded), report)
}

/// Reads at most one byte more than a configuration may have, so a huge file is refused
/// without reading it all.
fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_CONFIG_BYTES).unwrap_or(u64::MAX) + 1;
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// File problems in line order, then the environment's, then the flags'.
fn sort_by_place(report: &mut Report) {
    let key = |problem: &Problem| match &problem.origin {
        Origin::File { line, .. } => (0, line.unwrap_or(0)),
        Origin::Environment { .. } => (1, 0),
        Origin::Flag { .. } => (2, 0),
        Origin::Workspace { .. } => (3, 0),
    };
    report.fatal.sort_by_key(key);
    report.warnings.sort_by_key(key);
}
