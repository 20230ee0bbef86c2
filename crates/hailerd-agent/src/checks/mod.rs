//! Static checks of notebook cells with the real ruff and ty, run on this machine.
//!
//! The cells are put in dependency order into one script whose every line maps back to a cell
//! ([`script`]), the checkers run on it with a time limit and a scrubbed environment ([`run`]),
//! and only findings in the cells being checked are reported ([`report`]). A checker that
//! cannot run makes the report say so; checks never fail a tool call.

mod locate;
mod report;
mod run;
mod script;

use std::collections::BTreeSet;
use std::path::PathBuf;

use hailer_config::GatedSetting;
use hailer_marimo::CellSnapshot;

use report::Finding;

/// The Python version the kernel contract pins, for ruff's rules.
const TARGET_VERSION: &str = "py311";

/// Which checks run, and where their programs are.
#[derive(Debug, Clone)]
pub(crate) struct Checkers {
    pub lint: bool,
    pub typecheck: bool,
    /// `[checks] ruff`, when set.
    pub ruff: Option<PathBuf>,
    /// `[checks] ty`, when set.
    pub ty: Option<PathBuf>,
    /// The unsafe-local kernel's Python: its folder is searched for the programs, and ty reads
    /// the packages of its environment.
    pub kernel_python: Option<PathBuf>,
    /// The workspace, which relative program paths are resolved against.
    pub workspace: PathBuf,
    /// The trust decisions about `[checks] ruff` and `[checks] ty` (what the program was when
    /// the configuration was read), when the file set them.
    pub trusted: Vec<GatedSetting>,
}

impl Checkers {
    pub(crate) fn any(&self) -> bool {
        self.lint || self.typecheck
    }

    /// Refuses to start the configured program `name` when it is no longer what the trust
    /// decision covered: a script edited, or a link on its path retargeted, after the session
    /// read its configuration.
    fn still_trusted(&self, name: &str) -> Result<(), String> {
        let setting = format!("[checks] {name}");
        match self.trusted.iter().find(|trusted| trusted.name == setting) {
            Some(trusted) if !trusted.program_unchanged(&self.workspace) => Err(format!(
                "{name} was not run: the program {setting} names changed (its content or where \
                 its links lead) since this turn read hailer.toml; the next turn asks for \
                 `hailer trust` again"
            )),
            _ => Ok(()),
        }
    }
}

/// The ids of cells in `after` that are new or whose code changed, and that are not empty.
pub(crate) fn changed_cells(before: &[CellSnapshot], after: &[CellSnapshot]) -> BTreeSet<String> {
    after
        .iter()
        .filter(|cell| !cell.code.trim().is_empty())
        .filter(|cell| {
            before
                .iter()
                .find(|old| old.id == cell.id)
                .is_none_or(|old| old.code != cell.code)
        })
        .map(|cell| cell.id.clone())
        .collect()
}

/// Checks the cells whose ids are in `targets` (in the context of all `cells`) and returns the
/// report; `scope` names what was checked ("2 changed cells").
pub(crate) async fn check(
    cells: &[CellSnapshot],
    targets: &BTreeSet<String>,
    scope: &str,
    checkers: &Checkers,
) -> String {
    let is_target = |index: usize| targets.contains(&cells[index].id);
    let mut findings: Vec<Finding> = cells
        .iter()
        .enumerate()
        .filter(|(index, _)| is_target(*index))
        .filter_map(|(index, cell)| {
            cell.syntax.as_ref().map(|issue| Finding {
                cell: index,
                line: issue.line.unwrap_or(1),
                tool: "python",
                rule: "syntax-error".to_owned(),
                message: issue.message.clone(),
            })
        })
        .collect();
    let script = script::build(cells, &script::order(cells));
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let dir = match tempfile::Builder::new().prefix("hailer-checks-").tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            skipped.push(format!("no scratch folder for the checkers ({error})."));
            return report::render(cells, scope, &tools, &findings, &skipped);
        }
    };
    let search_path = std::env::var_os("PATH");
    let kernel_python = checkers.kernel_python.as_deref();
    let ruff_dir = dir.path().join("ruff");
    let ty_dir = dir.path().join("ty");
    let ruff_run = async {
        if !checkers.lint {
            return None;
        }
        let program = match locate::find(
            "ruff",
            checkers.ruff.as_deref(),
            kernel_python,
            search_path.as_deref(),
        ) {
            Ok(program) => program,
            Err(why) => return Some(Err(why)),
        };
        if let Err(why) = checkers.still_trusted("ruff") {
            return Some(Err(why));
        }
        if let Err(error) = std::fs::create_dir_all(&ruff_dir) {
            return Some(Err(format!("ruff has no scratch folder ({error})")));
        }
        Some(run::ruff(&program, &script.text, TARGET_VERSION, &ruff_dir).await)
    };
    let ty_run = async {
        if !checkers.typecheck {
            return None;
        }
        let program = match locate::find(
            "ty",
            checkers.ty.as_deref(),
            kernel_python,
            search_path.as_deref(),
        ) {
            Ok(program) => program,
            Err(why) => return Some(Err(why)),
        };
        if let Err(why) = checkers.still_trusted("ty") {
            return Some(Err(why));
        }
        if let Err(error) = std::fs::create_dir_all(&ty_dir) {
            return Some(Err(format!("ty has no scratch folder ({error})")));
        }
        Some(run::ty(&program, &script.text, kernel_python, &ty_dir).await)
    };
    let (ruff_outcome, ty_outcome) = tokio::join!(ruff_run, ty_run);
    for (tool, outcome) in [("ruff", ruff_outcome), ("ty", ty_outcome)] {
        match outcome {
            None => {}
            Some(Err(why)) => {
                tracing::info!(tool, %why, "a code check was skipped");
                skipped.push(format!("{tool}: {why}."));
            }
            Some(Ok(raw)) => {
                tools.push(tool);
                findings.extend(raw.into_iter().filter_map(|raw| {
                    let (cell, line) = script.origin(raw.line)?;
                    is_target(cell).then_some(Finding {
                        cell,
                        line,
                        tool,
                        rule: raw.rule,
                        message: raw.message,
                    })
                }));
            }
        }
    }
    let findings = report::tidy(findings, |cell| cell);
    report::render(cells, scope, &tools, &findings, &skipped)
}

/// "1 changed cell", "3 changed cells".
pub(crate) fn count_cells(count: usize, what: &str) -> String {
    if count == 1 {
        format!("1 {what} cell")
    } else {
        format!("{count} {what} cells")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_checker_edited_after_the_configuration_was_read_is_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().canonicalize().unwrap();
        std::fs::write(
            workspace.join("hailer.toml"),
            "[checks]\nruff = \"tools/r.sh\"\n",
        )
        .unwrap();
        std::fs::create_dir_all(workspace.join("tools")).unwrap();
        std::fs::write(workspace.join("tools/r.sh"), "#!/bin/sh\necho '[]'\n").unwrap();
        let loaded = hailer_config::load(&hailer_config::LoadInputs::new(&workspace)).unwrap();
        let checkers = Checkers {
            lint: true,
            typecheck: false,
            ruff: Some(workspace.join("tools/r.sh")),
            ty: None,
            kernel_python: None,
            workspace: workspace.clone(),
            trusted: loaded
                .trust
                .setting("[checks] ruff")
                .cloned()
                .into_iter()
                .collect(),
        };
        assert_eq!(checkers.still_trusted("ruff"), Ok(()));
        assert_eq!(checkers.still_trusted("ty"), Ok(()));
        std::fs::write(
            workspace.join("tools/r.sh"),
            "#!/bin/sh\ncurl evil.example\n",
        )
        .unwrap();
        let refused = checkers.still_trusted("ruff").unwrap_err();
        assert!(refused.starts_with("ruff was not run"), "{refused}");
    }
}
