//! Durable cells through marimo's code mode, run as ordinary executes.

use std::path::Path;
use std::time::Duration;

use super::{ExecOutcome, MarimoClient};
use crate::cell_snapshot::{self, CellSnapshot, SnapshotOptions};
use crate::chart_snippet::{self, DrawnChart};
use crate::code_mode::{self, CellEdit, CellInfo, NewCell};
use crate::error::{Error, Result};

/// A cell that was created or edited, and the run that did it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellChange {
    /// The id of the cell created or edited, as the code-mode snippet printed it (marimo's id
    /// for it in this session).
    pub cell_id: String,
    /// `success` is false when the cell itself raised; the cell is saved all the same.
    pub outcome: ExecOutcome,
}

impl MarimoClient {
    /// Creates a cell in `notebook` (saved to its file by marimo), optionally running it.
    pub async fn create_cell(
        &self,
        notebook: &Path,
        cell: &NewCell,
        budget: Duration,
    ) -> Result<CellChange> {
        let code = code_mode::create_cell_code(cell)?;
        self.change_cell(notebook, &code, budget).await
    }

    /// Changes an existing cell of `notebook`, optionally running it.
    pub async fn edit_cell(
        &self,
        notebook: &Path,
        edit: &CellEdit,
        budget: Duration,
    ) -> Result<CellChange> {
        let code = code_mode::edit_cell_code(edit)?;
        self.change_cell(notebook, &code, budget).await
    }

    /// The cells of `notebook`, in order.
    pub async fn list_cells(&self, notebook: &Path, budget: Duration) -> Result<Vec<CellInfo>> {
        let outcome = self
            .execute(notebook, &code_mode::list_cells_code(), budget)
            .await?;
        code_mode::parse_cells(&outcome.stdout).map_err(|error| with_stderr(error, &outcome))
    }

    /// The cells of `notebook` as its document holds them, without marking them as read.
    pub async fn snapshot_cells(
        &self,
        notebook: &Path,
        options: SnapshotOptions,
        budget: Duration,
    ) -> Result<Vec<CellSnapshot>> {
        let outcome = self
            .execute_until_line(
                notebook,
                &cell_snapshot::snapshot_code(options),
                cell_snapshot::SNAPSHOT_END,
                budget,
            )
            .await?;
        cell_snapshot::parse_snapshot(&outcome.stdout).map_err(|error| with_stderr(error, &outcome))
    }

    /// The charts of the cells `cell_ids` of `notebook`, drawn in the kernel.
    pub async fn draw_charts(
        &self,
        notebook: &Path,
        cell_ids: &[String],
        format: chart_snippet::PictureFormat,
        budget: Duration,
    ) -> Result<Vec<DrawnChart>> {
        let outcome = self
            .execute_until_line(
                notebook,
                &chart_snippet::draw_charts_code(cell_ids, format)?,
                chart_snippet::CHARTS_END,
                budget,
            )
            .await?;
        chart_snippet::parse_charts(&outcome.stdout).map_err(|error| with_stderr(error, &outcome))
    }

    async fn change_cell(
        &self,
        notebook: &Path,
        code: &str,
        budget: Duration,
    ) -> Result<CellChange> {
        let outcome = self.execute(notebook, code, budget).await?;
        match code_mode::parse_cell_id(&outcome.stdout) {
            Some(id) => Ok(CellChange {
                cell_id: id.to_owned(),
                outcome,
            }),
            None => Err(with_stderr(
                Error::CodeMode {
                    detail: "marimo reported no cell id".to_owned(),
                },
                &outcome,
            )),
        }
    }
}

/// Adds the kernel's error output to a code-mode error, which is where marimo explains it.
fn with_stderr(error: Error, outcome: &ExecOutcome) -> Error {
    match error {
        Error::CodeMode { detail } if !outcome.stderr.trim().is_empty() => Error::CodeMode {
            detail: format!(
                "{detail}; the kernel said:\n{}",
                last_lines(&outcome.stderr, 12)
            ),
        },
        other => other,
    }
}

fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}
