//! The agent's workspace tools through hailerd with the scripted model: periods, skills,
//! context notes, prompts and page fetching, as the model receives them.

use axum::Router;
use axum::http::header;
use axum::response::Redirect;
use axum::routing::get;
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

use super::agent_turns::{events, workspace_for};

/// Runs one `hailer run --json` turn whose model calls `calls` in turn, then answers "Done.".
async fn turn_with_calls(
    calls: Vec<(&str, Value)>,
    prepare: impl FnOnce(&TestWorkspace),
) -> (ScriptedModel, TestWorkspace, Vec<Value>) {
    let mut script = Script::new();
    for (name, arguments) in calls {
        script = script.reply(Reply::tool_call(name, arguments));
    }
    let model = ScriptedModel::start(script.reply(Reply::text("Done.")))
        .await
        .unwrap();
    let workspace = workspace_for(&model, "chat", true);
    prepare(&workspace);
    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Look around."]));
    assert!(output.status.success(), "{output:?}");
    let events = events(&output);
    (model, workspace, events)
}

/// Every tool result the model received, in order, from its last request.
fn tool_results(model: &ScriptedModel) -> Vec<String> {
    let requests = model.requests();
    let last = requests.last().unwrap();
    last.conversation()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap().to_owned())
        .collect()
}

fn system_prompt(model: &ScriptedModel) -> String {
    let requests = model.requests();
    requests[0]
        .conversation()
        .iter()
        .find(|message| message["role"] == "system")
        .map(|message| message["content"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

fn set_in_toml(workspace: &TestWorkspace, section: &str, line: &str) {
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let header = format!("[{section}]\n");
    assert!(toml.contains(&header), "{toml}");
    workspace.write(
        "hailer.toml",
        &toml.replacen(&header, &format!("{header}{line}\n"), 1),
    );
}

fn joined(results: &[String]) -> String {
    results.join("\n\n=====\n\n")
}

/// Writes three months of `sales` with Polars from the kernel's environment; the third month
/// adds a column.
fn write_sales_months(workspace: &TestWorkspace) {
    let python = hailer_tests::prereqs::kernel_venv().join("bin/python");
    let data = workspace.path().join("data");
    let script = r#"
import sys, polars as pl
data = sys.argv[1]
for month, extra in (("01", False), ("02", False), ("03", True)):
    frame = pl.DataFrame({"region": ["north", "south"], "units": [3, 4]})
    if extra:
        frame = frame.with_columns(pl.lit(0.1).alias("discount"))
    frame.write_parquet(f"{data}/25-{month} sales.parquet")
"#;
    let status = std::process::Command::new(python)
        .args(["-c", script])
        .arg(&data)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(data.join("customers.csv"), "id,name\n1,Ann\n").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_periods_reports_a_column_added_in_the_third_month() {
    let load = "from hailer_kernel.periods import load_periods\n\
                frame = load_periods(DATA_DIR, 'sales')\n\
                print(frame.columns, frame.height, sorted(frame['period'].unique()))";
    let (model, _workspace, _) = turn_with_calls(
        vec![
            ("list_periods", json!({})),
            ("list_periods", json!({"name": "stock"})),
            ("marimo_execute", json!({"code": load})),
        ],
        write_sales_months,
    )
    .await;
    let results = tool_results(&model);
    insta::assert_snapshot!(joined(&results[..2]));
    assert_eq!(
        results[2].trim(),
        "['period', 'region', 'units', 'discount'] 6 ['2025-01', '2025-02', '2025-03']"
    );
}

fn write_skill(workspace: &TestWorkspace) {
    workspace.write(
        ".config/hailer/skills/monthly-pack/SKILL.md",
        "---\nname: Monthly pack\ndescription: Builds the monthly KPI pack from the period files.\n---\n# Monthly pack\n\n1. Call list_periods.\n2. Follow reference/checks.md.\n",
    );
    workspace.write(
        ".config/hailer/skills/monthly-pack/reference/checks.md",
        "Totals must match the finance export.\n",
    );
    workspace.write(".config/hailer/secret.txt", "outside the skill\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_are_indexed_loaded_and_read_safely() {
    let (model, _workspace, _) = turn_with_calls(
        vec![
            ("load_skill", json!({"name": "MONTHLY PACK"})),
            (
                "read_skill_file",
                json!({"name": "monthly-pack", "path": "reference\\checks.md"}),
            ),
            (
                "read_skill_file",
                json!({"name": "monthly-pack", "path": "reference/missing.md"}),
            ),
            (
                "read_skill_file",
                json!({"name": "monthly-pack", "path": "../../secret.txt"}),
            ),
            ("load_skill", json!({"name": "forecasting"})),
        ],
        write_skill,
    )
    .await;
    insta::assert_snapshot!(joined(&tool_results(&model)));
    let system = system_prompt(&model);
    assert!(
        system.contains("## Available skills")
            && system
                .contains("- Monthly pack: Builds the monthly KPI pack from the period files."),
        "{system}"
    );
    assert!(
        !system.contains("Totals must match"),
        "skill bodies load on demand"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_notes_are_capped_and_secrets_warned_about() {
    let (model, _workspace, events) = turn_with_calls(vec![], |workspace| {
        set_in_toml(workspace, "hailer", "max_context_bytes = 120");
        // Only our two notes, not the one `hailer init` writes.
        std::fs::remove_dir_all(workspace.path().join(".config/hailer/context")).unwrap();
        workspace.write(
            ".config/hailer/context/00-about.md",
            "Amounts are in EUR.\nWAREHOUSE_TOKEN=wh_0123456789abcdef\n",
        );
        workspace.write(
            ".config/hailer/context/10-glossary.md",
            &"GMV: gross merchandise value.\n".repeat(5),
        );
    })
    .await;
    let system = system_prompt(&model);
    assert!(
        system.contains("## Project context")
            && system.contains("## 00-about.md\n\nAmounts are in EUR."),
        "{system}"
    );
    assert!(!system.contains("GMV"), "{system}");
    let notices: Vec<&str> = events
        .iter()
        .filter(|event| event["type"] == "notice")
        .filter_map(|event| event["message"].as_str())
        .filter(|message| message.contains("context note"))
        .collect();
    insta::assert_snapshot!(notices.join("\n"));
}

async fn page_server() -> u16 {
    let app = Router::new()
        .route(
            "/guide",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    "<html><body><h1>Fiscal calendar</h1><p>The fiscal year starts in <b>April</b>.</p></body></html>",
                )
            }),
        )
        .route("/moved", get(|| async { Redirect::temporary("http://files.example.net/guide") }))
        .route("/long", get(|| async { "0123456789".repeat(100) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_page_reaches_only_allowed_hosts() {
    let port = page_server().await;
    let base = format!("http://127.0.0.1:{port}");
    let (model, _workspace, _) = turn_with_calls(
        vec![
            ("fetch_page", json!({"url": format!("{base}/guide")})),
            ("fetch_page", json!({"url": "https://example.org/"})),
            ("fetch_page", json!({"url": format!("{base}/moved")})),
            ("fetch_page", json!({"url": format!("{base}/long")})),
            (
                "fetch_page",
                json!({"url": format!("http://localhost:{port}/guide")}),
            ),
        ],
        |workspace| {
            let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
            workspace.write(
                "hailer.toml",
                &toml.replace(
                    "allowed_domains = []",
                    "allowed_domains = [\"127.0.0.1\"]\nmax_page_bytes = 300",
                ),
            );
            // A loopback address in the allow list is the user's to agree to.
            workspace.trust();
        },
    )
    .await;
    let text = joined(&tool_results(&model)).replace(&port.to_string(), "PORT");
    insta::assert_snapshot!(text);
    let system = system_prompt(&model);
    assert!(
        system.contains("fetch_page can read pages from these hosts only: 127.0.0.1"),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_and_prompts_expand_into_the_turn_message() {
    let model = ScriptedModel::start(
        Script::new()
            .reply(Reply::text("First."))
            .reply(Reply::text("Second."))
            .reply(Reply::text("Third.")),
    )
    .await
    .unwrap();
    let workspace = workspace_for(&model, "chat", true);
    write_skill(&workspace);
    workspace.write(
        ".config/hailer/prompts/first-look.md",
        "Take a first look at {{args}} and list its columns.\n",
    );
    let first = tokio::task::block_in_place(|| workspace.hailer(&["run", "Hello."]));
    assert!(first.status.success(), "{first:?}");

    let (client, base, token) = workspace.api();
    let sessions: Value = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();

    let skills: Value = workspace
        .get_json(&format!("/v1/sessions/{id}/skills"))
        .await;
    // The example skill `hailer init` writes, and ours.
    assert_eq!(
        skills["skills"][1],
        json!({"name": "Monthly pack", "folder": "monthly-pack", "description": "Builds the monthly KPI pack from the period files."})
    );
    assert_eq!(skills["skills"][0]["name"], "data-quality-check");
    let prompts: Value = workspace
        .get_json(&format!("/v1/sessions/{id}/prompts"))
        .await;
    assert_eq!(prompts, json!({"prompts": ["first-look"]}));

    let unknown = client
        .post(format!("{base}/v1/sessions/{id}/turns"))
        .bearer_auth(&token)
        .json(&json!({"skill": {"name": "forecasting"}}))
        .send()
        .await
        .unwrap();
    // 422, not 404: the session exists; the name in the body does not.
    assert_eq!(unknown.status(), 422);
    let body: Value = unknown.json().await.unwrap();
    assert_eq!(body["code"], "unknown_name");
    assert_eq!(body["message"], "there is no skill named 'forecasting'");
    assert_eq!(
        body["hint"],
        "Available skills: data-quality-check, Monthly pack."
    );
    let unknown_prompt: Value = client
        .post(format!("{base}/v1/sessions/{id}/turns"))
        .bearer_auth(&token)
        .json(&json!({"prompt": {"name": "nope"}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(unknown_prompt["hint"], "Available prompts: first-look.");

    for (body, expected_requests) in [
        (
            json!({"skill": {"name": "monthly-pack", "message": "Build March."}}),
            2,
        ),
        (
            json!({"prompt": {"name": "first-look", "args": "sales.parquet"}}),
            3,
        ),
    ] {
        let started = client
            .post(format!("{base}/v1/sessions/{id}/turns"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(started.status(), 200, "{:?}", started.text().await);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while model.requests().len() < expected_requests {
            assert!(
                std::time::Instant::now() < deadline,
                "the turn never reached the model"
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        // Let the turn finish before the next one starts.
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    let requests = model.requests();
    let last_user = |index: usize| -> String {
        requests[index]
            .conversation()
            .iter()
            .rev()
            .find(|message| message["role"] == "user")
            .map(|message| message["content"].as_str().unwrap().to_owned())
            .unwrap()
    };
    insta::assert_snapshot!(format!("{}\n\n=====\n\n{}", last_user(1), last_user(2)));
}
