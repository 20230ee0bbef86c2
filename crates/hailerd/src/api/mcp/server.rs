//! The MCP server of one session: the session's agent tools, offered to another agent under
//! the names, descriptions and argument schemas the model reads, and run by the same code.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use hailer_agent::ToolContext;
use hailer_agent::{argument_preview, call_code, result_output, result_preview};
use hailer_agent::{cap_output, is_error};
use hailer_model::ToolCall;
use hailer_protocol::{Chart, SessionEvent};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::cancel::RunningCall;
use hailerd_session::Session;

/// The client name the audit trail gives calls made through MCP.
pub(super) const MCP_CLIENT: &str = "mcp";

/// Numbers MCP tool calls apart in the daemon (their charts are found by it).
static CALLS: AtomicU64 = AtomicU64::new(0);

/// The MCP face of a session; made afresh for every request.
pub(super) struct SessionServer {
    pub session: Weak<Session>,
}

impl SessionServer {
    fn live(&self) -> Result<Arc<Session>, ErrorData> {
        self.session.upgrade().ok_or_else(|| {
            ErrorData::invalid_request(
                "the session has ended; start the MCP server again to attach to a new one",
                None,
            )
        })
    }
}

/// The session's tools as MCP tools: the same specs the model is offered.
fn mcp_tools(session: &Arc<Session>) -> Result<hailer_agent::ToolRegistry, ErrorData> {
    hailerd_agent::session_tools(session, &session.loaded().config)
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

impl ServerHandler for SessionServer {
    fn get_info(&self) -> ServerConfig {
        // What isolates the kernel is said as the session says it (`docker (no network, …)`,
        // `unsafe-local (runs as you; not isolated)`), never assumed.
        let kernel = self
            .session
            .upgrade()
            .map(|session| session.kernel_line())
            .unwrap_or_else(|| "the session has ended".to_owned());
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hailer", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(&kernel))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let session = self.live()?;
        let tools = mcp_tools(&session)?
            .specs()
            .into_iter()
            .map(|spec| {
                let schema = spec.parameters.as_object().cloned().unwrap_or_default();
                Tool::new(spec.name, spec.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let session = self.live()?;
        let _busy = session.busy();
        let tools = mcp_tools(&session)?;
        let name = request.name.to_string();
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let call_id = format!("mcp-{}", CALLS.fetch_add(1, Ordering::Relaxed) + 1);
        // Every attached client sees the call as it sees the agent's: its code, then its result
        // and charts. It is no turn of the conversation, so the events carry no turn id.
        let call = ToolCall {
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: arguments.to_string(),
        };
        session.events.publish(SessionEvent::ToolCallStarted {
            turn_id: String::new(),
            call_id: call_id.clone(),
            name: name.clone(),
            preview: argument_preview(&call),
            code: call_code(&call),
            client: Some(MCP_CLIENT.to_owned()),
        });
        // A client that goes away or cancels the request stops the run, as a turn's cancel does.
        let cancel = context.ct.child_token();
        let request_id = serde_json::to_value(&context.id)
            .map(|id| id.to_string())
            .unwrap_or_default();
        let _running = RunningCall::enter(&session.id, request_id, cancel.clone());
        let ctx = ToolContext::for_client(call_id.clone(), cancel, MCP_CLIENT);
        let copy_back = hailerd_agent::may_change_notebooks(&name, &arguments);
        let mut finished = Finished {
            session: &session,
            call_id: &call_id,
            name: &name,
            output: None,
        };
        let text = tools.call(&name, arguments, ctx).await;
        if copy_back {
            // The work is in the notebook on this machine when the caller gets the result.
            session.copy_back_notebooks().await;
        }
        let max_chars = hailerd_agent::max_tool_output_chars(&session.loaded().config);
        let text = cap_output(&text, max_chars);
        finished.output = Some(text.clone());
        drop(finished);
        let charts = session.charts_of_call(&call_id);
        let mut content = vec![ContentBlock::text(text.clone())];
        content.extend(charts.iter().filter_map(picture_of));
        for chart in charts {
            session.events.publish(SessionEvent::Chart {
                turn_id: String::new(),
                call_id: call_id.clone(),
                chart,
            });
        }
        let result = if is_error(&text) {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(result.into())
    }
}

/// Tells every client that an MCP call ended: with its result, or as interrupted when the call
/// was dropped first (the client cancelled or went away).
struct Finished<'a> {
    session: &'a Session,
    call_id: &'a str,
    name: &'a str,
    output: Option<String>,
}

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        let output = self.output.take().unwrap_or_else(|| INTERRUPTED.to_owned());
        let (ok, preview) = result_preview(&output);
        self.session.events.publish(SessionEvent::ToolCallFinished {
            turn_id: String::new(),
            call_id: self.call_id.to_owned(),
            name: self.name.to_owned(),
            ok,
            preview,
            output: result_output(&output),
        });
    }
}

/// What clients are shown of a call the MCP client cancelled or left.
const INTERRUPTED: &str = "ERROR: the MCP client cancelled the call";

/// What the MCP client's agent reads first: where code runs and how it is kept.
fn instructions(kernel: &str) -> String {
    format!(
        "Hailer runs Python in a live marimo notebook kernel of this workspace. Kernel: {kernel}. \
         Every run is in the workspace's audit trail (`hailer audit`). Call marimo_status \
         first for the paths to use in code."
    )
}

/// A chart's picture as MCP image content (base64 data with its media type), when it has one.
fn picture_of(chart: &Chart) -> Option<ContentBlock> {
    let image = chart.image.as_ref()?;
    let data = image
        .data_url
        .strip_prefix("data:")?
        .strip_prefix(image.mimetype.as_str())?
        .strip_prefix(";base64,")?
        .to_owned();
    Some(ContentBlock::image(data, image.mimetype.clone()))
}

#[cfg(test)]
mod tests {
    use super::instructions;

    #[test]
    fn the_instructions_claim_no_isolation_the_kernel_lacks() {
        let said = instructions(&hailer_config::kernel_line(
            hailer_config::Runtime::UnsafeLocal,
            false,
            "marimo0.24.2",
        ));
        assert!(
            said.contains("Kernel: unsafe-local (runs as you; not isolated)."),
            "{said}"
        );
        assert!(!said.to_lowercase().contains("docker"), "{said}");
        assert!(!said.contains("read-only"), "{said}");
    }
}
