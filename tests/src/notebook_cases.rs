//! Cases every runtime must pass the same way, written once: the answer's cell in the host's
//! notebook when `hailer run` ends, and a memory limit too small for a kernel.

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

/// `[kernel] memory = "40m"` in the workspace's file: the first run is refused before any kernel
/// starts, saying the limit and the least a kernel needs. Returns the workspace, its daemon
/// stopped, for the runtime's own checks.
pub fn a_memory_limit_too_small_for_a_kernel_is_refused_at_once(
    workspace: TestWorkspace,
) -> TestWorkspace {
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml"))
        .unwrap_or_else(|error| panic!("hailer.toml: {error}"));
    let tiny = toml.replacen("# memory = \"4g\"", "memory = \"40m\"", 1);
    assert_ne!(toml, tiny, "the [kernel] section has no memory line to set");
    workspace.write("hailer.toml", &tiny);
    let started = std::time::Instant::now();
    let start = workspace.hailer(&["exec", "-c", "print(1)"]);
    assert!(
        !start.status.success(),
        "a kernel started in 40m: {start:?}"
    );
    let said = String::from_utf8_lossy(&start.stderr);
    assert!(
        said.contains("memory = \"40m\" is less than the 256m a kernel needs to start"),
        "{said}"
    );
    assert!(said.contains("at least 256m"), "{said}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "the refusal waited for a kernel"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
    workspace
}
