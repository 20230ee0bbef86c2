//! Checks that look at the workspace on disk: the notebook, the folders, the data-folder mount
//! rules and the Python for unsafe-local. They run at every start and in `doctor`.

use std::path::Path;

use crate::mount_rules::check_data_dir_mount;
use crate::paths;
use crate::problem::{Area, Origin, Problem, Report};
use crate::schema::{Config, Runtime};

/// What the checks need besides the configuration.
pub(crate) struct Layout<'a> {
    pub workspace: &'a Path,
    pub home: Option<&'a Path>,
    pub config_path: Option<&'a Path>,
}

pub(crate) fn check(config: &Config, layout: &Layout<'_>) -> Report {
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
            if let Err(refusal) = check_data_dir_mount(
                &hailer.data_dir,
                layout.workspace,
                layout.home,
                layout.config_path,
                &hailer_dirs,
            ) {
                report.push(
                    Problem::fatal(origin(&hailer.data_dir), refusal.message(), refusal.hint())
                        .in_area(Area::Data)
                        .at(Some("hailer"), Some("data_dir")),
                );
            } else if hailer_platform::drives::is_mapped_network_drive(&hailer.data_dir) {
                report.push(
                    Problem::warning(
                        origin(&hailer.data_dir),
                        "the data folder is on a mapped network drive, which Docker Desktop usually cannot mount",
                        "Copy the data to a folder on a local disk and set [hailer].data_dir to it.",
                    )
                    .in_area(Area::Data)
                    .at(Some("hailer"), Some("data_dir")),
                );
            }
        }
        Runtime::UnsafeLocal => {
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
