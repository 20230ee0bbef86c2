//! Another agent over MCP and our own agent's turn on one live session: every attached client
//! sees the MCP call's code, output and chart as it sees the agent's; the chart reaches the MCP
//! client as a PNG picture; a cancelled MCP call (over `hailer mcp` and over Streamable HTTP)
//! stops its run and leaves the kernel usable.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::{self, LiveSession};
use serde_json::{Value, json};

use super::mcp_server::{audited, audited_where};
use super::web_page_charts::CHART_CODE;

/// A named cell the agent's turn then reads: the MCP client's work in the shared kernel.
const TOTAL_CELL: &str = "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    cid = ctx.create_cell('mcp_total = 6 * 7', name='mcp_total')\n    ctx.run_cell(cid)\n";
/// The agent's code, which uses what the MCP client left in the kernel.
const TURN_CODE: &str = "print(mcp_total + 1)";

fn hailer() -> String {
    hailer_tests::bins::path("hailer")
        .to_str()
        .unwrap()
        .to_owned()
}

/// Reads `events` until the `kind` event of the call `call_id` (the agent's or a client's).
async fn call_event(events: &mut live::Events, kind: &str, call_id: &str) -> Value {
    loop {
        let (_, event, _) = live::until(events, kind).await;
        if event["call_id"] == call_id {
            return event;
        }
    }
}

/// Reads `events` until a `toolCallStarted` whose code is `code`.
async fn started_with(events: &mut live::Events, code: &str) -> Value {
    loop {
        let (_, event, _) = live::until(events, "toolCallStarted").await;
        if event["code"] == code {
            return event;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_call_and_the_agents_turn_share_the_live_session_and_every_client_sees_both() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": TURN_CODE}),
        ))
        .reply(Reply::text("The total is 43."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;

    // Another agent makes a chart and a named total through `hailer mcp`.
    let hailer = hailer();
    let seen = tokio::task::block_in_place(|| {
        hailer_tests::mcp_client::run(&workspace, &["stdio", &hailer, CHART_CODE, TOTAL_CELL])
    });
    let chart_call = &seen["calls"][0];
    assert_eq!(chart_call["isError"], false, "{seen}");
    let text = chart_call["text"].as_str().unwrap();
    assert!(text.contains("\nmade the chart cell\n"), "{text}");
    assert!(
        text.contains("chart 'Rows per city' of cell city_chart"),
        "{text}"
    );
    // The chart as MCP image content the official client took: a PNG file, base64 with its
    // media type.
    let images = chart_call["images"].as_array().unwrap();
    assert_eq!(images.len(), 1, "{seen}");
    assert_eq!(images[0]["mimeType"], "image/png", "{seen}");
    assert_eq!(images[0]["png"], true, "{seen}");
    assert!(images[0]["bytes"].as_u64().unwrap() > 1000, "{seen}");
    assert_eq!(seen["calls"][1]["isError"], false, "{seen}");

    // The event-stream client saw the MCP call as it sees the agent's: who called, the code,
    // the output and the chart, outside any turn.
    let started = started_with(&mut live.events, CHART_CODE).await;
    assert_eq!(started["client"], "mcp", "{started}");
    assert_eq!(started["turn_id"], "", "{started}");
    assert_eq!(started["name"], "marimo_execute");
    let call_id = started["call_id"].as_str().unwrap().to_owned();
    let finished = call_event(&mut live.events, "toolCallFinished", &call_id).await;
    assert_eq!(finished["ok"], true, "{finished}");
    assert!(
        finished["output"]
            .as_str()
            .unwrap()
            .contains("\nmade the chart cell\n"),
        "{finished}"
    );
    let chart = call_event(&mut live.events, "chart", &call_id).await;
    assert_eq!(chart["chart"]["title"], "Rows per city", "{chart}");
    assert_eq!(chart["chart"]["image"]["mimetype"], "image/png", "{chart}");
    let total = started_with(&mut live.events, TOTAL_CELL).await;
    assert_eq!(total["client"], "mcp", "{total}");

    // Our agent's turn on the same session uses what the MCP client left in the kernel; the
    // same client sees its call too, inside its turn.
    live.ask("What is the total?").await;
    let (_, turn_started, _) = live.until("turnStarted").await;
    let turn_id = turn_started["turn_id"].as_str().unwrap().to_owned();
    let agents = started_with(&mut live.events, TURN_CODE).await;
    assert_eq!(agents["turn_id"], turn_id.as_str(), "{agents}");
    assert_eq!(agents.get("client"), None, "{agents}");
    let agents_id = agents["call_id"].as_str().unwrap().to_owned();
    let result = call_event(&mut live.events, "toolCallFinished", &agents_id).await;
    assert_eq!(result["output"], "43", "{result}");
    let (_, answer, _) = live.until("turnFinished").await;
    assert_eq!(answer["text"], "The total is 43.");

    // The audit trail holds both runs, each as its own: the MCP client's outside any turn, the
    // agent's in its turn. The notebook holds the MCP client's cells.
    let mcp_run = tokio::task::block_in_place(|| audited(&workspace, "exec", CHART_CODE));
    assert_eq!(mcp_run["client"], "mcp");
    assert_eq!(mcp_run.get("turn"), None, "{mcp_run}");
    let turn_run = tokio::task::block_in_place(|| audited(&workspace, "exec", TURN_CODE));
    assert_eq!(turn_run["turn"], turn_id.as_str(), "{turn_run}");
    assert_ne!(turn_run["client"], "mcp", "{turn_run}");
    let chart_cell = tokio::task::block_in_place(|| {
        audited_where(&workspace, "the chart cell", |record| {
            record["kind"] == "cell"
                && record["code"]
                    .as_str()
                    .is_some_and(|code| code.contains("Rows per city"))
        })
    });
    assert_eq!(chart_cell["client"], "mcp");
    let notebook = std::fs::read_to_string(workspace.path().join("notebooks/analysis.py")).unwrap();
    assert!(notebook.contains("Rows per city"), "{notebook}");
    assert!(notebook.contains("mcp_total = 6 * 7"), "{notebook}");

    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

/// A run that would take a minute.
const SLEEP: &str = "import time\ntime.sleep(60)\nprint('slept')";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_mcp_call_stops_its_run_and_the_kernel_stays_usable() {
    let workspace = TestWorkspace::unsafe_local();
    let mut live = LiveSession::start(&workspace).await;
    // A ready kernel, so the cancelled call is cancelled while its code runs.
    let ready = live.post("/exec", json!({"code": "print('ready')"})).await;
    assert_eq!(ready.0, 200, "{ready:?}");

    // The official client cancels the call after 3 s (it sends `notifications/cancelled`),
    // then runs other code at once.
    let hailer = hailer();
    let seen = tokio::task::block_in_place(|| {
        hailer_tests::mcp_client::run(
            &workspace,
            &[
                "--cancel-after",
                "3",
                "stdio",
                &hailer,
                SLEEP,
                "print(6 * 7)",
            ],
        )
    });
    assert_eq!(seen["cancelled"], true, "{seen}");
    assert!(seen["cancelSeconds"].as_f64().unwrap() < 5.0, "{seen}");
    // Had the sleep gone on, the next run would wait for it.
    assert_eq!(seen["next"]["text"], "42", "{seen}");
    assert!(seen["nextSeconds"].as_f64().unwrap() < 10.0, "{seen}");

    // Every client saw the call end as cancelled; the trail says so; the kernel is idle.
    let started = started_with(&mut live.events, SLEEP).await;
    let call_id = started["call_id"].as_str().unwrap().to_owned();
    let finished = call_event(&mut live.events, "toolCallFinished", &call_id).await;
    assert_eq!(finished["ok"], false, "{finished}");
    let run = tokio::task::block_in_place(|| audited(&workspace, "exec", SLEEP));
    let ended = tokio::task::block_in_place(|| {
        audited_where(&workspace, "end of the cancelled run", |record| {
            record["kind"] == "exec"
                && record["sha256"] == run["sha256"]
                && record.get("outcome").is_some()
        })
    });
    assert_eq!(ended["outcome"], "cancelled", "{ended}");
    let mut kernel = Value::Null;
    for _ in 0..50 {
        kernel = workspace
            .get_json(&format!("/v1/sessions/{}", live.id))
            .await["kernel"]
            .clone();
        if kernel == "idle" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(kernel, "idle");
    // Over Streamable HTTP the client cancels by closing the call's request: the same.
    let url = format!("{}/v1/sessions/{}/mcp", live.base, live.id);
    let over_http = tokio::task::block_in_place(|| {
        hailer_tests::mcp_client::run(
            &workspace,
            &[
                "--cancel-after",
                "3",
                "http",
                &url,
                &live.token,
                SLEEP,
                "print(6 * 7)",
            ],
        )
    });
    assert_eq!(over_http["cancelled"], true, "{over_http}");
    assert_eq!(over_http["next"]["text"], "42", "{over_http}");
    assert!(
        over_http["nextSeconds"].as_f64().unwrap() < 10.0,
        "{over_http}"
    );

    // A client's own run goes through as before.
    let after = live
        .post("/exec", json!({"code": "print('still here')"}))
        .await;
    assert_eq!(after.0, 200, "{after:?}");
    assert_eq!(after.1["stdout"], "still here\n", "{after:?}");

    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
