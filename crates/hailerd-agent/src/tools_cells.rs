//! The cell tools: `notebook_cells` (list, filter) and `notebook_check` (ruff and ty on the whole
//! notebook), and the checks `marimo_execute` runs around code that writes cells.
//!
//! Cells are read from the notebook document ([`hailer_marimo::CellSnapshot`]), so listing or
//! checking them never counts as the agent having read them.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Weak;

use hailer_agent::tool_error;
use hailer_agent::{Tool, ToolContext};
use hailer_marimo::{CellSnapshot, SnapshotOptions};
use hailer_model::ToolSpec;
use serde_json::{Value, json};

use super::tool_args::{self, CellsArgs};
use crate::checks::{self, Checkers};
use hailerd_kernel::Kernel;
use hailerd_session::Session;

/// How much of a cell's first line `notebook_cells` shows.
const FIRST_LINE_CHARS: usize = 80;

fn checkers(session: &Session, kernel: &Kernel) -> Checkers {
    let loaded = session.loaded();
    let settings = &loaded.config.checks;
    Checkers {
        lint: settings.lint,
        typecheck: settings.typecheck,
        ruff: settings.ruff.clone(),
        ty: settings.ty.clone(),
        kernel_python: kernel.local_python().map(Path::to_path_buf),
        workspace: session.workspace().to_path_buf(),
        trusted: ["[checks] ruff", "[checks] ty"]
            .iter()
            .filter_map(|name| loaded.trust.setting(name).cloned())
            .collect(),
    }
}

/// The cells before code that uses code mode runs, with their charts' fingerprints (and, with
/// `[checks] format`, formatting of the cells it writes turned on); `None` when the cells cannot
/// be read.
pub(super) async fn snapshot_before(
    session: &Session,
    kernel: &Kernel,
    notebook: &Path,
) -> Option<Vec<CellSnapshot>> {
    let options = SnapshotOptions {
        analyse: false,
        format_on_save: session.loaded().config.checks.format,
        charts: true,
    };
    match kernel.snapshot_cells(notebook, options).await {
        Ok(cells) => Some(cells),
        Err(error) => {
            tracing::info!(%error, "the cells could not be read before a change");
            None
        }
    }
}

/// What code that used code mode changed in the notebook.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// The check report on the cells whose code changed; `None` when none did or no check is
    /// on.
    pub report: Option<String>,
    /// The cells whose chart is new or different, in notebook order.
    pub charts: Vec<CellSnapshot>,
    /// The created or edited cells that failed, each as `<name or id>: <its first error>`.
    pub failed: Vec<String>,
}

/// The changes since `before`: every created or edited cell is recorded in the audit trail,
/// checked when checks are on, and the cells showing a new chart are named. `client` as for
/// [`hailerd_kernel::Audit::entry`].
pub(super) async fn changes_since(
    session: &Session,
    kernel: &Kernel,
    notebook: &Path,
    before: &[CellSnapshot],
    client: Option<&str>,
) -> Changes {
    let checkers = checkers(session, kernel);
    let options = SnapshotOptions {
        analyse: checkers.any(),
        format_on_save: false,
        charts: true,
    };
    let after = match kernel.snapshot_cells(notebook, options).await {
        Ok(after) => after,
        Err(error) => {
            let report = checkers
                .any()
                .then(|| format!("(Check skipped: the cells could not be read: {error})"));
            return Changes {
                report,
                ..Changes::default()
            };
        }
    };
    let charts = new_charts(before, &after);
    let changed = checks::changed_cells(before, &after);
    if changed.is_empty() {
        return Changes {
            charts,
            ..Changes::default()
        };
    }
    let failed = after
        .iter()
        .filter(|cell| changed.contains(&cell.id))
        .filter_map(failure)
        .collect();
    record_cells(
        session,
        kernel,
        notebook,
        (before, &after),
        &changed,
        client,
    );
    let report = if checkers.any() {
        let scope = checks::count_cells(changed.len(), "changed");
        Some(checks::check(&after, &changed, &scope, &checkers).await)
    } else {
        None
    };
    Changes {
        report,
        charts,
        failed,
    }
}

/// A cell that failed, as `<name or id>: <its first error>`; `None` for one that did not.
fn failure(cell: &CellSnapshot) -> Option<String> {
    // marimo's status type may print as `CellStatusType.exception`.
    let status_failed = cell
        .status
        .as_deref()
        .and_then(|status| status.rsplit('.').next())
        .is_some_and(|status| matches!(status, "exception" | "marimo-error"));
    let first = cell
        .errors
        .iter()
        .flat_map(|error| error.lines())
        .map(str::trim)
        .find(|line| !line.is_empty());
    if first.is_none() && !status_failed {
        return None;
    }
    let label = cell.given_name().unwrap_or(&cell.id);
    Some(format!(
        "{label}: {}",
        first.unwrap_or("it raised an error when it ran")
    ))
}

/// The cells of `after` whose chart is not the one they showed in `before`.
fn new_charts(before: &[CellSnapshot], after: &[CellSnapshot]) -> Vec<CellSnapshot> {
    after
        .iter()
        .filter(|cell| {
            cell.chart.is_some()
                && before
                    .iter()
                    .find(|old| old.id == cell.id)
                    .is_none_or(|old| old.chart != cell.chart)
        })
        .cloned()
        .collect()
}

/// One audit record per cell that code mode created or edited, with the cell's code.
fn record_cells(
    session: &Session,
    kernel: &Kernel,
    notebook: &Path,
    (before, after): (&[CellSnapshot], &[CellSnapshot]),
    changed: &BTreeSet<String>,
    client: Option<&str>,
) {
    let name = kernel.relative_name(notebook);
    for cell in after.iter().filter(|cell| changed.contains(&cell.id)) {
        let verb = if before.iter().any(|old| old.id == cell.id) {
            "edited"
        } else {
            "created"
        };
        let mut entry = session
            .audit
            .entry(hailer_protocol::AuditKind::Cell, client);
        entry.notebook = Some(name.clone());
        entry.code = Some(cell.code.clone());
        entry.outcome = Some(hailer_protocol::AuditOutcome::Ok);
        entry.detail = Some(format!("{verb} cell {}", cell.id));
        session.audit.write(entry);
    }
}

/// Lists the active notebook's cells.
pub(super) struct NotebookCells {
    pub session: Weak<Session>,
}

impl Tool for NotebookCells {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_cells".to_owned(),
            description: "List the active notebook's cells, one per line: id, name, status, \
error count, first code line (then the errors). `pattern` keeps cells whose name or code matches \
it (a case-insensitive regex, or plain text). Call it before editing cells."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"pattern": {"type": "string", "description": "Filter; empty lists every cell", "default": ""}},
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let outcome: Result<String, String> = async {
            let args: CellsArgs = tool_args::read("notebook_cells", arguments)?;
            let (session, kernel) = tool_args::live_kernel(&self.session).await?;
            let notebook = session.active_notebook().await;
            let cells = kernel
                .snapshot_cells(&notebook, SnapshotOptions::default())
                .await
                .map_err(|error| {
                    tool_error(
                        &format!("the cells could not be read: {error}"),
                        "Call marimo_status to see the kernel's state.",
                    )
                })?;
            Ok(list_cells(&cells, args.pattern.unwrap_or_default().trim()))
        }
        .await;
        tool_args::reply(outcome)
    }
}

/// The listing of `cells` that match `pattern`.
pub(super) fn list_cells(cells: &[CellSnapshot], pattern: &str) -> String {
    if cells.is_empty() {
        return "(no cells)".to_owned();
    }
    let matcher = Matcher::new(pattern);
    let lines: Vec<String> = cells
        .iter()
        .filter(|cell| matcher.matches(&cell.name) || matcher.matches(&cell.code))
        .map(cell_line)
        .collect();
    if lines.is_empty() {
        return format!("No cells match '{pattern}'.");
    }
    lines.join("\n")
}

fn cell_line(cell: &CellSnapshot) -> String {
    let first = cell
        .code
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    let mut first_line: String = first.chars().take(FIRST_LINE_CHARS).collect();
    if first.chars().count() > FIRST_LINE_CHARS {
        first_line.push_str("...");
    }
    let mut line = format!(
        "{}\t{}\t{}\terrors={}\t{}",
        cell.id,
        cell.given_name().unwrap_or("-"),
        cell.status.as_deref().unwrap_or("empty"),
        cell.errors.len(),
        first_line
    );
    for error in &cell.errors {
        let error: String = error
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
        line.push_str("\n    ! ");
        line.push_str(&error);
    }
    line
}

/// A case-insensitive regex, or plain text when the pattern is not a valid regex.
enum Matcher {
    All,
    Regex(regex::Regex),
    Text(String),
}

impl Matcher {
    fn new(pattern: &str) -> Self {
        if pattern.is_empty() {
            return Self::All;
        }
        match regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
        {
            Ok(regex) => Self::Regex(regex),
            Err(_) => Self::Text(pattern.to_lowercase()),
        }
    }

    fn matches(&self, text: &str) -> bool {
        match self {
            Self::All => true,
            Self::Regex(regex) => regex.is_match(text),
            Self::Text(needle) => text.to_lowercase().contains(needle),
        }
    }
}

/// Checks every cell of the active notebook.
pub(super) struct NotebookCheck {
    pub session: Weak<Session>,
}

impl Tool for NotebookCheck {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_check".to_owned(),
            description: "Check every cell of the active notebook with ruff and ty (undefined \
names, mutable defaults, closures over loop variables, type errors); reports at most 20 findings \
with their code lines."
                .to_owned(),
            parameters: hailer_agent::no_arguments(),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        let (session, kernel) = match tool_args::live_kernel(&self.session).await {
            Ok(live) => live,
            Err(result) => return result,
        };
        let checkers = checkers(&session, &kernel);
        if !checkers.any() {
            return "Code checks are turned off ([checks] lint and typecheck in hailer.toml)."
                .to_owned();
        }
        let notebook = session.active_notebook().await;
        let options = SnapshotOptions {
            analyse: true,
            format_on_save: false,
            charts: false,
        };
        let cells = match kernel.snapshot_cells(&notebook, options).await {
            Ok(cells) => cells,
            Err(error) => {
                return tool_error(
                    &format!("the cells could not be read: {error}"),
                    "Call marimo_status to see the kernel's state.",
                );
            }
        };
        let targets: BTreeSet<String> = cells
            .iter()
            .filter(|cell| !cell.code.trim().is_empty())
            .map(|cell| cell.id.clone())
            .collect();
        if targets.is_empty() {
            return "The notebook has no code to check.".to_owned();
        }
        let scope = format!("all {}", checks::count_cells(targets.len(), "non-empty"));
        checks::check(&cells, &targets, &scope, &checkers).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(id: &str, chart: Option<&str>) -> CellSnapshot {
        CellSnapshot {
            id: id.to_owned(),
            chart: chart.map(str::to_owned),
            ..CellSnapshot::default()
        }
    }

    #[test]
    fn new_charts_are_the_new_and_the_changed_ones() {
        let before = [cell("a", Some("1")), cell("b", Some("2")), cell("c", None)];
        let after = [
            cell("a", Some("1")),
            cell("b", Some("3")),
            cell("c", Some("4")),
            cell("d", Some("5")),
            cell("e", None),
        ];
        let ids: Vec<String> = new_charts(&before, &after)
            .into_iter()
            .map(|cell| cell.id)
            .collect();
        assert_eq!(ids, ["b", "c", "d"]);
        assert!(new_charts(&after, &after).is_empty());
    }
}
