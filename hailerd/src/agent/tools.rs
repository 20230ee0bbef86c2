//! The agent's kernel tools: `marimo_execute` and `marimo_status`.

use std::sync::{Arc, Weak};
use std::time::Duration;

use hailer_agent::tool::tool_error;
use hailer_agent::{Tool, ToolContext};
use hailer_model::ToolSpec;
use serde_json::{Value, json};

use crate::session::Session;

/// How long one `marimo_execute` may run.
const EXECUTE_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs Python in the active notebook's kernel.
pub struct MarimoExecute {
    pub session: Weak<Session>,
}

impl Tool for MarimoExecute {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "marimo_execute".to_owned(),
            description: "Run Python in the active notebook's kernel and return what it printed, \
the value of the last expression (text, or the kind of rich output) and any error. The notebook's \
globals are available; names defined here are gone after the call. Runs stop after 300 seconds."
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
        let Some(code) = arguments.get("code").and_then(Value::as_str) else {
            return tool_error(
                "marimo_execute needs a string argument `code`",
                "Call it again with {\"code\": \"...\"}.",
            );
        };
        let Some(session) = live(&self.session) else {
            return tool_error("the session has ended", "Tell the user to start a new one.");
        };
        let kernel = match session.kernel().await {
            Ok(kernel) => kernel,
            Err(error) => {
                return tool_error(&error.to_string(), "Tell the user the kernel is down.");
            }
        };
        let notebook = session.active_notebook().await;
        let run = kernel.exec(&notebook, code, EXECUTE_TIMEOUT);
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = ctx.cancel.cancelled() => {
                // Dropping the run closes its request, which is what stops the code in marimo.
                // marimo's interrupt endpoint must not follow: a SIGINT that reaches the kernel
                // after the code stopped ends the kernel itself.
                return tool_error("the run was cancelled by the user", "Do not retry it.");
            }
        };
        match outcome {
            Ok(response) => render(&response),
            Err(error) => tool_error(
                &error.to_string(),
                "If the kernel was restarted, run the notebook's cells again before relying on its names.",
            ),
        }
    }
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
                "[rich output: {}; print what you need to see]\n",
                value.mimetype
            ));
        } else {
            text.push_str(&value.text);
            text.push('\n');
        }
    }
    if !response.stderr.is_empty() {
        text.push_str("stderr:\n");
        text.push_str(&response.stderr);
    }
    if !response.success {
        return format!("ERROR: the code raised an error\n{text}");
    }
    if text.is_empty() {
        "(no output)".to_owned()
    } else {
        text
    }
}

/// Describes the kernel and the notebooks, without any link or token.
pub struct MarimoStatus {
    pub session: Weak<Session>,
}

impl Tool for MarimoStatus {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "marimo_status".to_owned(),
            description: "Show the kernel's state, the runtime, the active notebook and which \
notebooks have a kernel session open."
                .to_owned(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        let Some(session) = live(&self.session) else {
            return tool_error("the session has ended", "Tell the user to start a new one.");
        };
        let info = session.info().await;
        let list = session.list_notebooks().await;
        let open: Vec<&str> = list
            .notebooks
            .iter()
            .filter(|entry| entry.open)
            .map(|entry| entry.name.as_str())
            .collect();
        format!(
            "Kernel: {:?} ({})\nActive notebook: {}\nOpen notebooks: {}\nNotebooks: {}",
            info.kernel,
            info.kernel_line,
            list.active.as_deref().unwrap_or("none"),
            if open.is_empty() {
                "none".to_owned()
            } else {
                open.join(", ")
            },
            list.notebooks.len()
        )
    }
}

fn live(session: &Weak<Session>) -> Option<Arc<Session>> {
    session.upgrade()
}
