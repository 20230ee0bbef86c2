//! The notebook tools: `notebook_list`, `notebook_create`, `notebook_open` and `notebook_close`.
//!
//! They use the same session operations as the HTTP API. Create and open bring the notebook's
//! kernel session up themselves (no browser is involved) and answer with what the notebook holds.
//! No reply carries a link: links hold the kernel's token.

use std::sync::Weak;

use hailer_agent::tool_error;
use hailer_agent::{Tool, ToolContext};
use hailer_marimo::SnapshotOptions;
use hailer_model::ToolSpec;
use hailer_protocol::{CreateNotebookParams, NotebookTemplate};
use serde_json::{Value, json};

use super::tool_args::{self, CloseArgs, CreateArgs, OpenArgs, live, session_error};
use super::tools_cells::list_cells;
use hailerd_session::Session;

/// Lists the notebooks of the workspace.
pub(super) struct NotebookList {
    pub session: Weak<Session>,
}

impl Tool for NotebookList {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_list".to_owned(),
            description: "List the workspace's notebooks with age, size, and which is active and \
which have a kernel session."
                .to_owned(),
            parameters: hailer_agent::no_arguments(),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        let session = match live(&self.session) {
            Ok(session) => session,
            Err(result) => return result,
        };
        let list = session.list_notebooks().await;
        if list.notebooks.is_empty() {
            return "No notebooks yet. Create one with notebook_create(name).".to_owned();
        }
        let now = hailerd_kernel::unix_now();
        let mut lines: Vec<String> = list
            .notebooks
            .iter()
            .map(|entry| {
                let mut line = format!(
                    "  - {}  modified {}  {}",
                    entry.name,
                    age(now - entry.modified_at),
                    size(entry.size)
                );
                if entry.active {
                    line.push_str("  [active]");
                }
                if entry.open {
                    line.push_str("  [open]");
                }
                line
            })
            .collect();
        if session.kernel().await.is_err() {
            lines.push(
                "(The kernel is not running, so which notebooks are open is unknown.)".into(),
            );
        }
        lines.join("\n")
    }
}

fn age(seconds: i64) -> String {
    match seconds {
        ..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", seconds / 60),
        3_600..86_400 => format!("{} h ago", seconds / 3_600),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

fn size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// Creates a notebook from a template and makes it active.
pub(super) struct NotebookCreate {
    pub session: Weak<Session>,
}

impl Tool for NotebookCreate {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_create".to_owned(),
            description: "Create a notebook (only when the user asks for one), make it active and \
start its kernel session. The file name is a slug of `name`. template: \"starter\" (imports and \
data helpers) or \"empty\"."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Name of the new notebook"},
                    "template": {"type": "string", "enum": ["starter", "empty"], "default": "starter"}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let outcome: Result<String, String> = async {
            let args: CreateArgs = tool_args::read("notebook_create", arguments)?;
            let template = match args.template.unwrap_or_default().trim().to_lowercase().as_str() {
                "" | "starter" => NotebookTemplate::Starter,
                "empty" => NotebookTemplate::Empty,
                other => {
                    return Err(tool_error(
                        &format!("there is no template '{other}'"),
                        "Use \"starter\" or \"empty\".",
                    ));
                }
            };
            let session = live(&self.session)?;
            let params = CreateNotebookParams {
                name: args.name,
                template,
            };
            let change = session
                .create_notebook(&params)
                .await
                .map_err(|error| session_error(&error))?;
            let defines = match template {
                NotebookTemplate::Starter => {
                    "It defines mo, pl, duckdb, Path, WORKSPACE, DATA_DIR, data_files, period_files \
and the period helpers (load_periods, scan_periods, describe_periods, duckdb_periods_view)."
                }
                NotebookTemplate::Empty => "It has no cells yet.",
            };
            Ok(format!(
                "{} It is the active notebook and its kernel session is ready. {defines}",
                change.message
            ))
        }
        .await;
        tool_args::reply(outcome)
    }
}

/// Makes another notebook active.
pub(super) struct NotebookOpen {
    pub session: Weak<Session>,
}

impl Tool for NotebookOpen {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_open".to_owned(),
            description: "Make a notebook active and start its kernel session; lists its cells. \
`notebook`: a name, file name or path inside the notebooks folder."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"notebook": {"type": "string", "description": "Which notebook"}},
                "required": ["notebook"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let outcome: Result<String, String> = async {
            let args: OpenArgs = tool_args::read("notebook_open", arguments)?;
            let session = live(&self.session)?;
            let paths = super::prompt::KernelPaths::of(&session);
            let change = session
                .open_notebook(&paths.notebook_reference(&args.notebook))
                .await
                .map_err(|error| session_error(&error))?;
            let cells = match session.kernel().await {
                Ok(kernel) => {
                    let notebook = session.active_notebook().await;
                    match kernel
                        .snapshot_cells(&notebook, SnapshotOptions::default())
                        .await
                    {
                        Ok(cells) => list_cells(&cells, ""),
                        Err(error) => format!("(its cells could not be read: {error})"),
                    }
                }
                Err(error) => format!("(its cells could not be read: {error})"),
            };
            Ok(format!("{}\nCells:\n{cells}", change.message))
        }
        .await;
        tool_args::reply(outcome)
    }
}

/// Closes a notebook's kernel session.
pub(super) struct NotebookClose {
    pub session: Weak<Session>,
}

impl Tool for NotebookClose {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "notebook_close".to_owned(),
            description: "Shut down a notebook's kernel session (default: the active notebook's), \
freeing its memory. The active notebook stays active; its next run starts a fresh session."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"notebook": {"type": "string", "description": "Which notebook; empty for the active one", "default": ""}},
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        let outcome: Result<String, String> = async {
            let args: CloseArgs = tool_args::read("notebook_close", arguments)?;
            let session = live(&self.session)?;
            let paths = super::prompt::KernelPaths::of(&session);
            let notebook = args.notebook.unwrap_or_default();
            let change = session
                .close_notebook(&paths.notebook_reference(&notebook))
                .await
                .map_err(|error| session_error(&error))?;
            Ok(change.message)
        }
        .await;
        tool_args::reply(outcome)
    }
}
