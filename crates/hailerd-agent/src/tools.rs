//! The agent's kernel tools: `marimo_execute` and `marimo_status`, and what every tool of the
//! session shares (finding the live session, turning session errors into tool errors).

use std::sync::Weak;

use hailer_agent::{Tool, ToolContext};
use hailer_agent::{cap_output, tool_error};
use hailer_config::Runtime;
use hailer_marimo::KernelState;
use hailer_model::ToolSpec;
use serde_json::{Value, json};

use super::tool_args::{self, ExecuteArgs, live};
use super::{tools_cells, tools_charts};
use hailerd_session::Session;

/// Runs Python in the active notebook's kernel.
pub(super) struct MarimoExecute {
    pub session: Weak<Session>,
    /// The cap the turn applies to results, so a check report survives it.
    pub max_output_chars: usize,
}

impl Tool for MarimoExecute {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "marimo_execute".to_owned(),
            description: "Run Python in the active notebook's kernel (a scratchpad: names defined \
here are gone after the call; the notebook's globals are available). Returns stdout, the last \
expression's value as text, and stderr. Make durable cells with marimo._code_mode \
(ctx.create_cell / ctx.edit_cell); those are then checked with ruff and ty and the findings \
appended. A run is stopped after the session's time limit (300 s unless the user set \
another): read large files lazily (pl.scan_csv / scan_parquet, or DuckDB) so only what the answer \
needs is read."
                .to_owned(),
            parameters: json!({
                "type": "object",
                "properties": {"code": {"type": "string", "description": "Python code to run"}},
                "required": ["code"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> String {
        let code = match tool_args::read::<ExecuteArgs>("marimo_execute", arguments) {
            Ok(args) => args.code,
            Err(result) => return result,
        };
        let (session, kernel) = match tool_args::live_kernel(&self.session).await {
            Ok(live) => live,
            Err(result) => return result,
        };
        let notebook = session.active_notebook().await;
        let before = if uses_code_mode(&code) {
            tools_cells::snapshot_before(&session, &kernel, &notebook).await
        } else {
            None
        };
        let client = ctx.client.as_deref();
        let run = session.run_code(&kernel, &notebook, &code, session.exec_timeout(), client);
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = ctx.cancel.cancelled() => {
                // Dropping the run closes its request, which is what stops the code in marimo.
                // marimo's interrupt endpoint must not follow: a SIGINT that reaches the kernel
                // after the code stopped ends the kernel itself.
                return tool_error("the run was cancelled by the user", "Do not retry it.");
            }
        };
        let text = match outcome {
            Ok(response) => render(&response),
            Err(error) => {
                session.report_kernel_error(&error);
                let hint = error.hint().unwrap_or_else(|| {
                    "If the kernel was restarted, run the notebook's cells again before relying on its names."
                        .to_owned()
                });
                return tool_error(&error.to_string(), &hint);
            }
        };
        let Some(before) = before else {
            return text;
        };
        let changes =
            tools_cells::changes_since(&session, &kernel, &notebook, &before, client).await;
        let in_turn = client.is_none();
        let shown = tools_charts::publish(
            &session,
            &kernel,
            &notebook,
            &changes.charts,
            &ctx.call_id,
            in_turn,
        )
        .await;
        let text = if shown.is_empty() {
            text
        } else {
            format!("{text}\n{}", shown.join("\n"))
        };
        let text = with_failed_cells(text, &changes.failed);
        match changes.report {
            Some(report) => {
                // Trim the run's output first, so the report survives the turn's cap.
                let room = self
                    .max_output_chars
                    .saturating_sub(report.chars().count() + 2);
                format!("{}\n\n{report}", cap_output(&text, room))
            }
            None => text,
        }
    }
}

/// Whether the call of the tool `name` with `arguments` may change a notebook's file: code that
/// uses code mode, or a notebook created, opened or closed. A caller outside a turn copies a
/// docker kernel's notebooks back after such a call, as the end of a turn does.
pub fn may_change_notebooks(name: &str, arguments: &Value) -> bool {
    match name {
        "marimo_execute" => arguments
            .get("code")
            .and_then(Value::as_str)
            .is_some_and(uses_code_mode),
        "notebook_create" | "notebook_open" | "notebook_close" => true,
        _ => false,
    }
}

/// Whether `code` works on the notebook's cells through code mode (creates, edits or runs
/// them): the cells are then read before and after it, for the audit, the checks and the charts.
fn uses_code_mode(code: &str) -> bool {
    ["_code_mode", "create_cell", "edit_cell", "run_cell"]
        .iter()
        .any(|mark| code.contains(mark))
}

/// The result of a run whose cells failed: an error, naming the first failed cell and its
/// first error, with what the run printed after it.
fn with_failed_cells(text: String, failed: &[String]) -> String {
    let Some(first) = failed.first() else {
        return text;
    };
    if hailer_agent::is_error(&text) {
        return format!("{text}\nFailed cells:\n{}", failed.join("\n"));
    }
    let more = match failed.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    let hint = recovery_hint(&failed.join("\n"));
    let mut result = tool_error(&format!("cell {first}{more}"), &hint);
    if failed.len() > 1 {
        result.push_str(&format!("\nFailed cells:\n{}", failed.join("\n")));
    }
    format!("{result}\n{text}")
}

/// What to do about the marimo errors `said` names; empty when it names none Hailer knows.
fn recovery_hint(said: &str) -> String {
    let mut hints = Vec::new();
    if said.contains("StaleCellError") || said.contains("has changed since") {
        hints.push(
            "Another client changed that cell since you read it: read the cells again \
             (ctx.cells or notebook_cells), then edit the cell as it is now.",
        );
    }
    if said.contains("MultipleDefinitionError")
        || said.contains("multiple-defin")
        || said.contains("defined by another cell")
        || said.contains("was defined by another cell")
        || said.contains("multiply")
    {
        hints.push(
            "A name may be defined in one cell only, imports included (a second `import \
             altair as alt` is a second definition): edit the cell that owns the name, delete \
             the new definition, or give throwaway names a leading _.",
        );
    }
    if said.contains("NameError") {
        hints.push(
            "A cell's names reach the scratchpad only from the next marimo_execute: a name \
             defined by a cell created or run in this call is not visible in it. Use it in \
             the next call.",
        );
    }
    hints.join("\n")
}

/// The first line of a failed run's error: the exception's last line from the traceback.
fn error_summary(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('^') && !line.starts_with('~'))
        .unwrap_or("the code raised an error");
    hailer_agent::cap_output(line, 300)
}

fn render(response: &hailer_protocol::ExecResponse) -> String {
    let mut text = String::new();
    if response.fresh_kernel {
        text.push_str(
            "[Hailer] The kernel was restarted before this run; earlier state is gone.\n",
        );
    }
    if !response.stdout.is_empty() {
        text.push_str(&response.stdout);
        if !response.stdout.ends_with('\n') {
            text.push('\n');
        }
    }
    if let Some(value) = &response.value {
        if value.text.is_empty() {
            text.push_str(&format!(
                "[{} output not shown: print() the values you need]\n",
                value.mimetype
            ));
        } else if value.text.trim() != response.stdout.trim() {
            text.push_str(&value.text);
            text.push('\n');
        }
    }
    if !response.stderr.is_empty() {
        text.push_str("[stderr]\n");
        text.push_str(&response.stderr);
    }
    if !response.success {
        let failed = tool_error(
            &format!("the run failed: {}", error_summary(&response.stderr)),
            &recovery_hint(&response.stderr),
        );
        return format!("{failed}\n{}", text.trim_end());
    }
    if text.is_empty() {
        "(no output)".to_owned()
    } else {
        text.trim_end().to_owned()
    }
}

/// Describes the kernel, the paths it sees and the notebooks' sessions, without any link.
pub(super) struct MarimoStatus {
    pub session: Weak<Session>,
}

impl Tool for MarimoStatus {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "marimo_status".to_owned(),
            description: "Show the kernel (runtime, state), the paths to use in code, the active \
notebook and which notebooks have a kernel session."
                .to_owned(),
            parameters: hailer_agent::no_arguments(),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        let session = match live(&self.session) {
            Ok(session) => session,
            Err(result) => return result,
        };
        status_text(&session).await
    }
}

/// The text of `marimo_status`.
pub(super) async fn status_text(session: &Session) -> String {
    let paths = super::prompt::KernelPaths::of(session);
    let mut lines = vec![format!("kernel: {}", session.kernel_line())];
    lines.push(format!(
        "kernel paths (use these in code): workspace {}, data {}{}, notebooks {}",
        paths.workspace,
        paths.data,
        if paths.runtime == Runtime::Docker {
            " (read-only)"
        } else {
            ""
        },
        paths.notebooks
    ));
    let kernel = match session.kernel().await {
        Ok(kernel) => kernel,
        Err(error) => {
            let list = session.list_notebooks().await;
            let active = list.active.unwrap_or_else(|| "none".to_owned());
            lines.push(format!("marimo: not running ({error})"));
            lines.push(format!("active notebook: {active}"));
            return lines.join("\n");
        }
    };
    let list = session.list_notebooks().await;
    let active = list.active.clone().unwrap_or_else(|| "none".to_owned());
    lines.push("marimo: running".to_owned());
    let notebook = session.active_notebook().await;
    let state = match kernel.notebook_state(&notebook).await {
        Ok(Some(KernelState::Idle)) => "session ready (idle)".to_owned(),
        Ok(Some(KernelState::Running)) => "session busy (running code)".to_owned(),
        Ok(Some(KernelState::Stopped)) => {
            "session's kernel has STOPPED; the next marimo_execute starts a new one".to_owned()
        }
        Ok(Some(KernelState::Other(state))) => format!("session state {state}"),
        Ok(None) => {
            "no session yet; the next marimo_execute or notebook_open starts one".to_owned()
        }
        Err(error) => format!("state unknown ({error})"),
    };
    lines.push(format!("active notebook: {active} -> {state}"));
    let open: Vec<String> = list
        .notebooks
        .iter()
        .filter(|entry| entry.open)
        .map(|entry| {
            if entry.active {
                format!("  - {} (active)", entry.name)
            } else {
                format!("  - {} (other notebook)", entry.name)
            }
        })
        .collect();
    if open.is_empty() {
        lines.push("open sessions: none".to_owned());
    } else {
        lines.push("open sessions:".to_owned());
        lines.extend(open);
    }
    lines.join("\n")
}
