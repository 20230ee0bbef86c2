//! Checks that look at the workspace on disk: the notebook, the folders, the data-folder mount
//! rules and the Python for unsafe-local. They run at every start and in `doctor`.

use std::path::Path;

use crate::mount_rules::{AppDataDirs, check_data_dir_mount};
use crate::paths;
use crate::problem::{Area, Origin, Problem, Report};
use crate::schema::{Config, Runtime};

/// What the checks need besides the configuration.
pub(crate) struct Layout<'a> {
    pub workspace: &'a Path,
    pub home: Option<&'a Path>,
    pub config_path: Option<&'a Path>,
    pub app_data: &'a AppDataDirs,
}

pub(crate) fn check(config: &Config, layout: &Layout<'_>) -> Report {
    check_with(config, layout, &hailer_platform::is_mapped_network_drive)
}

/// [`check`], asking `on_network_drive` whether a folder is on a mapped network drive.
fn check_with(
    config: &Config,
    layout: &Layout<'_>,
    on_network_drive: &dyn Fn(&Path) -> bool,
) -> Report {
    let mut report = Report::default();
    let shown = |path: &Path| paths::display_relative(layout.workspace, path);
    let origin = |path: &Path| Origin::Workspace { path: shown(path) };
    let hailer = &config.hailer;

    if !hailer.notebook.is_file() && layout.config_path.is_none() {
        // No hailer.toml anywhere up the tree: not a missing notebook, a missing workspace.
        report.push(
            Problem::fatal(
                Origin::Workspace {
                    path: layout.workspace.display().to_string(),
                },
                "no hailer.toml was found here or in any folder above, so this is not a Hailer workspace",
                "Run `hailer init` in the folder that holds your data (it writes hailer.toml, the starter notebook and data/), or run hailer from inside a workspace.",
            )
            .in_area(Area::Config),
        );
    } else if !hailer.notebook.is_file() {
        report.push(
            Problem::fatal(
                origin(&hailer.notebook),
                "the notebook named by [hailer] notebook does not exist",
                "Run `hailer init` to create the starter notebook, create it with `/notebook new`, or point [hailer] notebook at an existing file.",
            )
            .in_area(Area::Notebook)
            .at(Some("hailer"), Some("notebook")),
        );
    }
    if !hailer.notebooks_dir.is_dir() {
        report.push(
            Problem::warning(
                origin(&hailer.notebooks_dir),
                "the notebooks folder does not exist",
                "Create it, or point [hailer] notebooks_dir at the folder that holds your notebooks.",
            )
            .in_area(Area::Notebook)
            .at(Some("hailer"), Some("notebooks_dir")),
        );
    } else if paths::resolve_existing(&hailer.notebooks_dir)
        == paths::resolve_existing(layout.workspace)
    {
        report.push(
            Problem::warning(
                origin(&hailer.notebooks_dir),
                "the notebooks folder is the workspace itself, so every Python file there counts as a notebook",
                "Keep notebooks in a folder of their own, such as notebooks_dir = \"notebooks\".",
            )
            .in_area(Area::Notebook)
            .at(Some("hailer"), Some("notebooks_dir")),
        );
    }
    if !hailer.data_dir.is_dir() {
        report.push(
            Problem::warning(
                origin(&hailer.data_dir),
                "the data folder does not exist yet",
                "Create it and put your CSV, Parquet, JSON or Excel files in it, or point [hailer] data_dir at your data.",
            )
            .in_area(Area::Data)
            .at(Some("hailer"), Some("data_dir")),
        );
    }

    match config.kernel.runtime {
        Runtime::Docker => {
            let hailer_dirs = [
                hailer.context_dir.as_path(),
                hailer.skills_dir.as_path(),
                hailer.prompts_dir.as_path(),
            ];
            let data = origin(&hailer.data_dir);
            let problem = match check_data_dir_mount(
                &hailer.data_dir,
                layout.workspace,
                layout.home,
                layout.config_path,
                &hailer_dirs,
                layout.app_data,
            ) {
                Err(refusal) => Some(Problem::fatal(data, refusal.message(), refusal.hint())),
                // The drive is asked about only for a folder the rules accept.
                Ok(()) if on_network_drive(&hailer.data_dir) => Some(Problem::warning(
                    data,
                    "the data folder is on a mapped network drive, which Docker Desktop usually cannot mount",
                    "Copy the data to a folder on a local disk and set [hailer].data_dir to it.",
                )),
                Ok(()) => None,
            };
            if let Some(problem) = problem {
                report.push(
                    problem
                        .in_area(Area::Data)
                        .at(Some("hailer"), Some("data_dir")),
                );
            }
        }
        Runtime::UnsafeLocal | Runtime::Sandbox => {
            if let Some(python) = config.kernel.python.as_ref().filter(|p| is_path_like(p))
                && !python.is_file()
            {
                report.push(
                    Problem::fatal(
                        origin(python),
                        "the Python named by [kernel] python does not exist",
                        "Point [kernel] python at a Python that has marimo installed, or delete the line to use Hailer's own.",
                    )
                    .in_area(Area::Kernel)
                    .at(Some("kernel"), Some("python")),
                );
            }
        }
    }
    report
}

fn is_path_like(path: &Path) -> bool {
    path.components().count() > 1 || path.is_absolute()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::cell::Cell;

    use super::*;
    use crate::problem::Severity;
    use crate::{LoadInputs, Loaded};

    /// A docker workspace with its data folder, loaded as a client in it would load it.
    fn docker_workspace(toml: &str) -> (tempfile::TempDir, Loaded) {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("sales ws");
        std::fs::create_dir_all(workspace.join("data")).unwrap();
        std::fs::write(workspace.join("hailer.toml"), toml).unwrap();
        let mut inputs = LoadInputs::new(&workspace);
        inputs.home = Some(dir.path().to_path_buf());
        let loaded = crate::load(&inputs).unwrap();
        assert_eq!(loaded.config.kernel.runtime, Runtime::Docker);
        (dir, loaded)
    }

    /// The data folder's problems when `on_network_drive` answers for it, and whether it asked.
    fn data_problems(loaded: &Loaded, on_network_drive: bool) -> (Vec<Problem>, bool) {
        let asked = Cell::new(false);
        let layout = Layout {
            workspace: &loaded.workspace.root,
            home: loaded.home.as_deref(),
            config_path: loaded.config_path.as_deref(),
            app_data: &loaded.app_data,
        };
        let report = check_with(&loaded.config, &layout, &|path| {
            assert_eq!(path, loaded.config.hailer.data_dir);
            asked.set(true);
            on_network_drive
        });
        let problems = report
            .all()
            .filter(|problem| problem.area == Area::Data)
            .cloned()
            .collect();
        (problems, asked.get())
    }

    #[test]
    fn a_data_folder_on_a_mapped_network_drive_gets_a_data_warning() {
        let (_dir, loaded) = docker_workspace("");
        let (problems, asked) = data_problems(&loaded, true);
        assert!(asked);
        let [warning] = problems.as_slice() else {
            panic!("one data problem: {problems:?}");
        };
        assert_eq!(warning.severity, Severity::Warning);
        assert!(
            warning.message.contains("mapped network drive"),
            "{}",
            warning.message
        );
        assert!(warning.hint.contains("local disk"), "{}", warning.hint);
        assert_eq!(
            (warning.section.as_deref(), warning.key.as_deref()),
            (Some("hailer"), Some("data_dir"))
        );

        let (problems, asked) = data_problems(&loaded, false);
        assert!(asked);
        assert!(
            problems.is_empty(),
            "a local disk gets no warning: {problems:?}"
        );
    }

    #[test]
    fn a_refused_data_folder_is_fatal_and_its_drive_is_not_asked() {
        let (_dir, loaded) = docker_workspace("[hailer]\ndata_dir = \".\"\n");
        let (problems, asked) = data_problems(&loaded, true);
        assert!(!asked);
        let [fatal] = problems.as_slice() else {
            panic!("one data problem: {problems:?}");
        };
        assert_eq!(fatal.severity, Severity::Fatal);
        assert!(fatal.message.contains("the workspace"), "{}", fatal.message);
    }
}
