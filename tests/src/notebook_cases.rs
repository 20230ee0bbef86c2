//! Cases every runtime must pass the same way, written once.

use hailer_scripted_model::{Reply, Script, ScriptedModel};

use crate::TestWorkspace;

/// `hailer run` with a turn whose code adds a cell through code mode: when the command exits, the
/// cell (holding `marker = 6 * 7`) is already in the host's notebook, whatever the runtime does
/// to bring it there. Returns the workspace, its daemon stopped, for the runtime's own checks.
pub async fn hailer_run_ends_with_the_answers_cell_in_the_host_notebook(
    workspace: impl FnOnce() -> TestWorkspace,
    marker: &str,
) -> TestWorkspace {
    let code = format!(
        "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    cid = ctx.create_cell('{marker} = 6 * 7', name='marked')\n    ctx.run_cell(cid)\n"
    );
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            serde_json::json!({"code": code}),
        ))
        .reply(Reply::text("The cell is in the notebook."));
    let model = ScriptedModel::start(script)
        .await
        .unwrap_or_else(|error| panic!("scripted model: {error}"));
    let workspace = workspace().answered_by(&model.base_url());
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", "Add the cell."]));
    // Read at once: the moment the command has exited, with no waiting for a background copy.
    let notebook = std::fs::read_to_string(workspace.path().join("notebooks/analysis.py"))
        .unwrap_or_else(|error| panic!("the notebook: {error}"));
    assert!(output.status.success(), "{output:?}");
    assert!(crate::output_text(&output).contains("The cell is in the notebook."));
    assert!(
        notebook.contains(&format!("{marker} = 6 * 7")),
        "{notebook}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    workspace
}
