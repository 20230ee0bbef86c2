//! What a tool is to the agent: a name, a description and an argument schema the model reads, and
//! an async call that always answers with text.
//!
//! Tools never fail a turn. Whatever goes wrong inside a tool comes back to the model as text
//! starting with `ERROR:` (see [`tool_error`]), so the model can read it and try something else.

mod cap;
mod registry;

use std::future::Future;
use std::pin::Pin;

use hailer_model::ToolSpec;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub(crate) use cap::DEFAULT_MAX_TOOL_OUTPUT_CHARS;
pub use cap::cap_output;
pub(crate) use registry::stopped_unexpectedly;
pub use registry::{DuplicateTool, ToolRegistry};

/// The argument schema of a tool that takes none: `{"type": "object"}`.
///
/// The strict providers disagree about an object without fields. Gemini refuses an empty
/// `properties` ("should be non-empty for OBJECT type"), and its older schema checks refuse
/// `additionalProperties`; OpenAI's strict mode refuses an object *without* `properties` ("object
/// schema missing properties"). No schema with no fields satisfies both, so Hailer never asks for
/// strict mode (`strict: false` on the Responses wire, no `strict` on Chat Completions) and sends
/// the plain object type, which Gemini, OpenAI, vLLM, llama.cpp, Ollama and LiteLLM all accept.
pub fn no_arguments() -> Value {
    serde_json::json!({"type": "object"})
}

/// What a running tool may look at besides its arguments.
#[derive(Clone, Debug)]
pub struct ToolContext {
    /// The id the model gave this call.
    pub call_id: String,
    /// Cancelled when the turn is cancelled: a long-running tool should stop (for example,
    /// interrupt the kernel) and return promptly.
    pub cancel: CancellationToken,
    /// The client that called the tool itself, outside any turn (an MCP client); `None` for a
    /// call the model made in a turn. Records of what the call did name it.
    pub client: Option<String>,
}

impl ToolContext {
    /// The context of the call `call_id`, stopped through `cancel`.
    pub fn new(call_id: impl Into<String>, cancel: CancellationToken) -> Self {
        Self {
            call_id: call_id.into(),
            cancel,
            client: None,
        }
    }

    /// The context of a call that `client` made directly, outside any turn.
    pub fn for_client(
        call_id: impl Into<String>,
        cancel: CancellationToken,
        client: impl Into<String>,
    ) -> Self {
        Self {
            client: Some(client.into()),
            ..Self::new(call_id, cancel)
        }
    }
}

/// One of the agent's tools.
///
/// Implement `call` as an `async fn`. It returns the text the model reads; a failure is reported
/// with [`tool_error`], never by panicking (a panic is caught and reported the same way).
pub trait Tool: Send + Sync + 'static {
    /// The name, description and JSON schema of the arguments, as offered to the model.
    fn spec(&self) -> ToolSpec;

    /// Runs the tool. `arguments` is always a JSON object.
    fn call(&self, arguments: Value, ctx: &ToolContext) -> impl Future<Output = String> + Send;
}

/// A boxed tool call, so tools of different types can live in one registry.
pub(crate) type ToolFuture<'a> = Pin<Box<dyn Future<Output = String> + Send + 'a>>;

/// The object-safe face of [`Tool`].
pub(crate) trait DynTool: Send + Sync {
    fn call_boxed<'a>(&'a self, arguments: Value, ctx: &'a ToolContext) -> ToolFuture<'a>;
}

impl<T: Tool> DynTool for T {
    fn call_boxed<'a>(&'a self, arguments: Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        Box::pin(self.call(arguments, ctx))
    }
}

/// The text of a failed tool call: `ERROR: <message>`, then the hint on its own line.
pub fn tool_error(message: &str, hint: &str) -> String {
    let hint = hint.trim();
    if hint.is_empty() {
        format!("ERROR: {}", message.trim())
    } else {
        format!("ERROR: {}\n{hint}", message.trim())
    }
}

/// Whether a tool result reports a failure.
pub fn is_error(result: &str) -> bool {
    result.starts_with("ERROR:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_put_the_hint_on_its_own_line() {
        assert_eq!(
            tool_error(
                "the cell does not exist.",
                "Call notebook_cells to list the cells."
            ),
            "ERROR: the cell does not exist.\nCall notebook_cells to list the cells."
        );
        assert_eq!(tool_error(" no hint ", " "), "ERROR: no hint");
        assert!(is_error(&tool_error("x", "y")));
        assert!(!is_error("all fine"));
    }
}
