//! The agent's tools, in the order they are offered to the model, looked up by name.

use std::fmt;
use std::sync::Arc;

use hailer_model::ToolSpec;

use super::{DynTool, Tool, ToolContext, tool_error};

/// Two tools with one name: the model could not tell them apart.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("A tool named '{0}' is already registered; every tool needs its own name.")]
pub struct DuplicateTool(pub String);

#[derive(Clone)]
struct Entry {
    spec: ToolSpec,
    tool: Arc<dyn DynTool>,
}

/// The ordered set of tools a turn may use. Cheap to clone.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    entries: Arc<Vec<Entry>>,
}

impl fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// A registered tool, ready to be called from a spawned task.
#[derive(Clone)]
pub(crate) struct RegisteredTool(Arc<dyn DynTool>);

impl RegisteredTool {
    pub(crate) fn get(&self) -> &dyn DynTool {
        self.0.as_ref()
    }
}

/// The result of a tool whose task ended without an answer (it panicked).
pub(crate) fn stopped_unexpectedly(name: &str) -> String {
    tool_error(
        &format!("the tool {name} stopped unexpectedly."),
        "Try again with other arguments, or reach the goal another way.",
    )
}

impl ToolRegistry {
    /// A registry with no tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool after the ones already there. Its spec is read once, here.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), DuplicateTool> {
        let spec = tool.spec();
        if self.get_spec(&spec.name).is_some() {
            return Err(DuplicateTool(spec.name));
        }
        Arc::make_mut(&mut self.entries).push(Entry {
            spec,
            tool: Arc::new(tool),
        });
        Ok(())
    }

    /// [`register`](Self::register) for building a registry in one expression.
    pub fn with(mut self, tool: impl Tool) -> Result<Self, DuplicateTool> {
        self.register(tool)?;
        Ok(self)
    }

    /// The specs of every tool, in order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.entries
            .iter()
            .map(|entry| entry.spec.clone())
            .collect()
    }

    /// The names of every tool, in the order they are offered to the model.
    pub fn names(&self) -> Vec<&str> {
        self.entries
            .iter()
            .map(|entry| entry.spec.name.as_str())
            .collect()
    }

    /// The spec of the tool named exactly `name`; `None` when no tool has that name.
    pub fn get_spec(&self, name: &str) -> Option<&ToolSpec> {
        self.entries
            .iter()
            .find(|entry| entry.spec.name == name)
            .map(|entry| &entry.spec)
    }

    /// Runs the tool named exactly `name` with `arguments` (a JSON object) on a task of its
    /// own, as a turn does, and answers its text: for a name no tool has, or a tool that
    /// stopped unexpectedly, the same error text a turn gives the model.
    pub async fn call(&self, name: &str, arguments: serde_json::Value, ctx: ToolContext) -> String {
        let Some(tool) = self.get(name) else {
            return self.unknown_tool(name);
        };
        let task = tokio::spawn(async move { tool.get().call_boxed(arguments, &ctx).await });
        match task.await {
            Ok(text) => text,
            Err(failure) => {
                tracing::warn!(tool = %name, %failure, "a tool stopped unexpectedly");
                stopped_unexpectedly(name)
            }
        }
    }

    /// The result of calling a tool by a name none has: the names there are.
    pub(crate) fn unknown_tool(&self, name: &str) -> String {
        tool_error(
            &format!("there is no tool named '{name}'."),
            &format!("The tools are: {}.", self.names().join(", ")),
        )
    }

    pub(crate) fn get(&self, name: &str) -> Option<RegisteredTool> {
        self.entries
            .iter()
            .find(|entry| entry.spec.name == name)
            .map(|entry| RegisteredTool(Arc::clone(&entry.tool)))
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tool is registered, so the model is offered none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
