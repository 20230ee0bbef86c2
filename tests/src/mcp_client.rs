//! The official Python MCP client (`tests/mcp-client/client.py`, in the venv of
//! `scripts/install-pinned-venv.sh`), run the way another agent runs Hailer's MCP server.

use std::process::Command;

use serde_json::Value;

use crate::{TestWorkspace, prereqs};

/// Runs the client in `workspace` with `args`, with the environment a `hailer` command of the
/// workspace gets (so `hailer mcp` finds the workspace's daemon); what it printed, as JSON.
/// Panics when it fails.
pub fn run(workspace: &TestWorkspace, args: &[&str]) -> Value {
    let hailer_command = workspace.command(&[]);
    let mut command = Command::new(prereqs::mcp_python());
    command
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-client/client.py"))
        .args(args)
        .current_dir(workspace.path());
    for (name, value) in hailer_command.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run the MCP client: {error}"));
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("the MCP client printed no JSON ({error}): {output:?}"))
}
