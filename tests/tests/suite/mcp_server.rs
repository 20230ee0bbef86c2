//! `hailer mcp` and the daemon's MCP route, driven by the official Python MCP client the way
//! another agent drives them, against a docker workspace.

use std::time::Duration;

use hailer_tests::TestWorkspace;
use serde_json::Value;

/// Polars on a data file, through the read-only data folder.
const SUM: &str = "import polars as pl\nprint(pl.read_csv(DATA_DIR / 'sales.csv')['amount'].sum())";
const NETWORK: &str = "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('reached')\nexcept OSError:\n    print('blocked')";
/// A cell made through code mode: the work left in the notebook.
const CELL: &str = "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    cid = ctx.create_cell('mcp_total = 6 * 7', name='mcp_total')\n    ctx.run_cell(cid)\n";

fn client(workspace: &TestWorkspace, args: &[&str]) -> Value {
    hailer_tests::mcp_client::run(workspace, args)
}

/// The audit trail's records, once one of `kind` holds `code`.
pub(super) fn audited(workspace: &TestWorkspace, kind: &str, code: &str) -> Value {
    audited_where(workspace, &format!("{kind} record of {code:?}"), |record| {
        record["kind"] == kind && record["code"] == code
    })
}

/// The first record of the workspace's trail that `wanted` picks, waiting for it a little.
pub(super) fn audited_where(
    workspace: &TestWorkspace,
    what: &str,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..50 {
        let listed = workspace.hailer(&["audit", "--json"]);
        let records: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap_or_default();
        if let Some(found) = records.into_iter().find(|record| wanted(record)) {
            return found;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("no {what} in the audit trail");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_agent_runs_polars_in_the_isolated_kernel_over_stdio_and_http() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\nsouth,32\n");

    let hailer = hailer_tests::bins::path("hailer");
    let hailer = hailer.to_str().unwrap();
    let seen =
        tokio::task::block_in_place(|| client(&workspace, &["stdio", hailer, SUM, NETWORK, CELL]));

    // The workspace's agent tools, under their own names, descriptions and schemas.
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "marimo_execute",
            "marimo_status",
            "notebook_cells",
            "notebook_check",
            "notebook_list",
            "notebook_create",
            "notebook_open",
            "notebook_close",
            "list_periods",
            "load_skill",
            "read_skill_file",
            "fetch_page"
        ]
    );
    assert_eq!(seen["server"], "hailer");
    // The other agent is told what really keeps the kernel, as the session says it.
    let instructions = seen["instructions"].as_str().unwrap_or_default();
    assert!(
        instructions.contains("Kernel: docker (hailer-kernel")
            && instructions.contains("no network"),
        "{instructions}"
    );
    assert!(
        seen["descriptions"]["marimo_execute"]
            .as_str()
            .unwrap()
            .starts_with("Run Python in the active notebook's kernel"),
        "{seen}"
    );
    assert_eq!(seen["schemas"]["marimo_execute"]["required"][0], "code");

    let calls = seen["calls"].as_array().unwrap();
    assert_eq!(calls[0]["text"], "42", "{seen}");
    assert_eq!(calls[0]["isError"], false);
    assert_eq!(
        calls[1]["text"], "blocked",
        "the kernel has no network: {seen}"
    );
    assert_eq!(calls[2]["isError"], false, "{seen}");
    // A wrong call is a tool error in the words the chat shows the model.
    assert_eq!(calls[3]["isError"], true);
    assert_eq!(
        calls[3]["text"],
        "ERROR: marimo_execute needs a string argument `code`\nCall it again with {\"code\": \"...\"}."
    );

    // Every run is in the audit trail, as the MCP client's; the cell is in the notebook here.
    // A run is written before it starts, with its code, and again when it ends, with how.
    let run = tokio::task::block_in_place(|| audited(&workspace, "exec", SUM));
    assert_eq!(run["client"], "mcp");
    assert_eq!(run.get("turn"), None);
    let ended = tokio::task::block_in_place(|| {
        audited_where(&workspace, "end of the MCP run", |record| {
            record["kind"] == "exec"
                && record["sha256"] == run["sha256"]
                && record.get("outcome").is_some()
        })
    });
    assert_eq!(ended["client"], "mcp");
    assert_eq!(ended["outcome"], "ok");
    let cell = tokio::task::block_in_place(|| audited(&workspace, "cell", "mcp_total = 6 * 7"));
    assert_eq!(cell["client"], "mcp");
    let notebook = std::fs::read_to_string(workspace.path().join("notebooks/analysis.py")).unwrap();
    assert!(notebook.contains("mcp_total = 6 * 7"), "{notebook}");

    // The same session over Streamable HTTP: refused without the token, answered with it.
    let id = workspace.get_json("/v1/sessions").await["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (http, base, token) = workspace.api();
    let url = format!("{base}/v1/sessions/{id}/mcp");
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "1"}}
    });
    let bare = http.post(&url).json(&initialize).send().await.unwrap();
    assert_eq!(bare.status(), 401);
    // A page of another site cannot reach it through the user's browser (DNS rebinding).
    let foreign = http
        .post(&url)
        .bearer_auth(&token)
        .header("Origin", "http://evil.example")
        .json(&initialize)
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let refused = tokio::task::block_in_place(|| client(&workspace, &["http", &url, "-", SUM]));
    assert!(refused["refused"].is_string(), "{refused}");
    let answered = tokio::task::block_in_place(|| client(&workspace, &["http", &url, &token, SUM]));
    assert_eq!(answered["calls"][0]["text"], "42", "{answered}");

    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
