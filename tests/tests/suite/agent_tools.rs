//! The agent's notebook tools through hailerd, with the scripted model and a real unsafe-local
//! kernel: the exact text each tool result gave the model, the output cap, the code checks, and
//! the size of the first request.

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

/// Runs one turn in which the model calls `calls` one after the other, then answers.
/// One `hailer run` whose model makes `calls`, then answers; `settings` are `(table, lines)`
/// put at the top of that table of `hailer.toml`, which is then trusted.
async fn turn_with_calls(
    calls: &[(&str, Value)],
    settings: &[(&str, &str)],
) -> (TestWorkspace, ScriptedModel, std::process::Output) {
    let mut script = Script::new();
    for (name, arguments) in calls {
        script = script.reply(Reply::tool_call(*name, arguments.clone()));
    }
    let script = script.reply(Reply::text("Done."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    if !settings.is_empty() {
        let mut toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
        for (table, lines) in settings {
            let header = format!("\n{table}\n");
            assert!(toml.contains(&header), "{toml}");
            toml = toml.replacen(&header, &format!("{header}{lines}"), 1);
        }
        workspace.write("hailer.toml", &toml);
        workspace.trust();
    }
    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Work on it."]));
    (workspace, model, output)
}

/// The tool results of the turn, in order, as `(tool name, text)`.
fn tool_results(model: &ScriptedModel) -> Vec<(String, String)> {
    let requests = model.requests();
    let last = requests.last().unwrap();
    let mut names = std::collections::HashMap::new();
    let mut results = Vec::new();
    for message in last.conversation() {
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            names.insert(
                call["id"].as_str().unwrap().to_owned(),
                call["function"]["name"].as_str().unwrap().to_owned(),
            );
        }
        if message["role"] == "tool" {
            let id = message["tool_call_id"].as_str().unwrap();
            results.push((
                names.get(id).cloned().unwrap_or_default(),
                message["content"].as_str().unwrap().to_owned(),
            ));
        }
    }
    results
}

/// `text` with the workspace's paths replaced, so snapshots hold on every machine.
fn portable(workspace: &TestWorkspace, text: &str) -> String {
    let canonical = workspace.canonical().display().to_string();
    let raw = workspace.path().display().to_string();
    text.replace(&canonical, "<workspace>")
        .replace(&raw, "<workspace>")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_notebook_tool_answers_the_model_in_plain_text() {
    let calls = [
        ("notebook_cells", json!({})),
        ("marimo_status", json!({})),
        ("notebook_list", json!({})),
        ("notebook_cells", json!({"pattern": "data_files|welcome"})),
        ("notebook_cells", json!({"pattern": "no such thing"})),
        (
            "notebook_create",
            json!({"name": "Sales Q3", "template": "empty"}),
        ),
        ("notebook_create", json!({"name": "Sales Q3"})),
        ("notebook_create", json!({"name": "x", "template": "fancy"})),
        ("notebook_open", json!({"notebook": "../hailer.toml"})),
        ("notebook_open", json!({"notebook": "missing"})),
        ("notebook_open", json!({"notebook": "analysis"})),
        ("notebook_list", json!({})),
        ("notebook_close", json!({"notebook": "sales_q3"})),
        ("notebook_close", json!({})),
        ("notebook_check", json!({})),
        ("notebook_cells", json!({"pattern": 7})),
    ];
    let (workspace, model, output) = turn_with_calls(&calls, &[]).await;
    assert!(output.status.success(), "{output:?}");
    let results = tool_results(&model);
    assert_eq!(results.len(), calls.len(), "{results:?}");
    for ((name, text), (called, _)) in results.iter().zip(calls.iter()) {
        assert_eq!(name, called);
        assert!(
            !text.contains("access_token"),
            "a token reached the model: {text}"
        );
    }
    let transcript: String = results
        .iter()
        .map(|(name, text)| format!("=== {name}\n{}\n", portable(&workspace, text)))
        .collect();
    insta::assert_snapshot!("notebook_tools", transcript);
    assert!(workspace.path().join("notebooks/sales_q3.py").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_down_kernel_comes_back_as_an_error_with_a_hint() {
    // A program that is no Python: the kernel's environment cannot be made from it.
    let python = [("[kernel]", "python = \"/bin/false\"\n")];
    let calls = [
        ("marimo_execute", json!({"code": "print(1)"})),
        ("notebook_cells", json!({})),
        ("marimo_status", json!({})),
    ];
    let (workspace, model, output) = turn_with_calls(&calls, &python).await;
    // The model answered, but no code ran: the run did not do its work.
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let results = tool_results(&model);
    let transcript: String = results
        .iter()
        .map(|(name, text)| format!("=== {name}\n{}\n", portable(&workspace, text)))
        .collect();
    for (_, text) in &results[..2] {
        assert!(
            text.starts_with("ERROR: the kernel could not start"),
            "{transcript}"
        );
        assert!(text.lines().count() >= 2, "a hint follows: {text}");
    }
    assert!(results[2].1.contains("marimo: not running"), "{transcript}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_output_reaches_the_model_capped_with_head_and_tail() {
    let code = "print('HEAD' + 'x' * 40000 + 'TAIL')";
    let calls = [("marimo_execute", json!({"code": code}))];
    let (_workspace, model, output) = turn_with_calls(&calls, &[]).await;
    assert!(output.status.success(), "{output:?}");
    let results = tool_results(&model);
    let text = &results[0].1;
    assert!(text.chars().count() <= 12_000, "{}", text.chars().count());
    assert!(text.starts_with("HEAD"), "{}", &text[..40]);
    assert!(text.ends_with("TAIL"), "{}", &text[text.len() - 40..]);
    assert!(text.contains("characters cut ...]"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_request_fits_in_12_kb() {
    let model = ScriptedModel::start(Script::new().reply_text("Hello."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted_with_env(&model.base_url(), "chat", false, Vec::new());
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Hi"]));
    assert!(output.status.success(), "{output:?}");
    let requests = model.requests();
    let body = serde_json::to_vec(&requests[0].body).unwrap();
    let tools = requests[0].body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        &names[..8],
        [
            "marimo_execute",
            "marimo_status",
            "notebook_cells",
            "notebook_check",
            "notebook_list",
            "notebook_create",
            "notebook_open",
            "notebook_close"
        ]
    );
    let system = requests[0].conversation()[0]["content"].as_str().unwrap();
    let tools_bytes = serde_json::to_vec(tools).unwrap().len();
    println!(
        "first request: {} bytes (system prompt {} bytes, {} tool schemas {} bytes)",
        body.len(),
        system.len(),
        tools.len(),
        tools_bytes
    );
    assert!(
        body.len() <= 12_288,
        "the first request is {} bytes",
        body.len()
    );
    // The prompt names the kernel's paths for this runtime (unsafe-local: the host's).
    let data = workspace.canonical().join("data");
    assert!(
        system.contains(&data.display().to_string())
            || system.contains(&workspace.path().join("data").display().to_string()),
        "{system}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_checks_report_findings_in_the_new_cell_only() {
    let cell = "def collect(item, bucket=[]):\n    bucket.append(item)\n    return bucket\nresult = collect(1)+undefined_total\n";
    let code = format!(
        "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    cid = ctx.create_cell({cell:?}, name='bucket_demo')\n    ctx.run_cell(cid)\n"
    );
    let calls = [
        ("marimo_execute", json!({"code": code})),
        ("notebook_check", json!({})),
    ];
    let (workspace, model, output) = turn_with_calls(&calls, &[]).await;
    assert!(output.status.success(), "{output:?}");
    let results = tool_results(&model);
    let execute = &results[0].1;
    let report = &execute[execute.find("Code checks").unwrap_or(0)..];
    let id = report
        .split("bucket_demo (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no finding names the cell: {execute}"))
        .to_owned();
    insta::assert_snapshot!("checks_new_cell", report.replace(&id, "<id>"));
    let whole = results[1].1.replace(&id, "<id>");
    assert!(whole.contains("B006"), "{whole}");
    assert!(
        !whole.contains("cell Hbol"),
        "untouched starter cells are clean: {whole}"
    );

    // The new cell was formatted with ruff before it ran and was saved.
    let saved = std::fs::read_to_string(workspace.path().join("notebooks/analysis.py")).unwrap();
    assert!(saved.contains("collect(1) + undefined_total"), "{saved}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_checker_makes_the_report_say_it_was_skipped() {
    let code = "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    ctx.create_cell('value = undefined_name + 1', name='lonely')\n";
    let calls = [("marimo_execute", json!({"code": code}))];
    let (_workspace, model, output) = turn_with_calls(
        &calls,
        &[("[checks]", "ruff = \"/nonexistent/bin/ruff\"\n")],
    )
    .await;
    assert!(output.status.success(), "{output:?}");
    let text = &tool_results(&model)[0].1;
    assert!(
        text.contains("(Check skipped: ruff: ruff was not found at /nonexistent/bin/ruff"),
        "{text}"
    );
    // ty still ran and found the undefined name.
    assert!(
        text.contains("Code checks (ty) on 1 changed cell: 1 finding."),
        "{text}"
    );
    assert!(text.contains("ty unresolved-reference"), "{text}");
}

/// Cells written the way Altair, Polars and DuckDB are used every day (the starter notebook
/// imports `pl` and `duckdb`: a second import of a name is an error in marimo).
const IDIOMATIC_CELLS: [(&str, &str); 4] = [
    (
        "sales_frame",
        "sales = pl.DataFrame(\n    {\n        \"city\": [\"Oslo\", \"Lima\", \"Pune\"],\n        \"month\": [\"2026-01\", \"2026-01\", \"2026-02\"],\n        \"revenue\": [120.5, 80.0, 99.9],\n    }\n)\ntotals = (\n    sales.lazy()\n    .filter(pl.col(\"revenue\") > 0)\n    .group_by(\"city\")\n    .agg(pl.col(\"revenue\").sum().alias(\"total\"), pl.len().alias(\"rows\"))\n    .sort(\"total\", descending=True)\n    .collect()\n)\nby_month = sales.with_columns(pl.col(\"month\").str.to_date(\"%Y-%m\"))\n",
    ),
    (
        "revenue_chart",
        "import altair as alt\n\nbars = (\n    alt.Chart(sales)\n    .mark_bar()\n    .encode(\n        x=alt.X(\"city:N\", sort=\"-y\", title=\"City\"),\n        y=alt.Y(\"sum(revenue):Q\", title=\"Revenue\"),\n        color=\"city:N\",\n        tooltip=[\"city\", alt.Tooltip(\"revenue:Q\", format=\",.2f\")],\n    )\n    .properties(title=\"Revenue by city\", width=400)\n)\nbars\n",
    ),
    (
        "layered_chart",
        "trend = alt.Chart(by_month).mark_line(point=True).encode(x=\"month:T\", y=\"revenue:Q\")\nmean_rule = alt.Chart(sales).mark_rule(color=\"red\").encode(y=\"mean(revenue):Q\")\npick = alt.selection_point(fields=[\"city\"])\nlayered = alt.layer(bars.add_params(pick), mean_rule) | trend\nlayered\n",
    ),
    (
        "duckdb_totals",
        "per_city = duckdb.sql(\"SELECT city, sum(revenue) AS total FROM sales GROUP BY city\").pl()\nanswer = duckdb.sql(\"SELECT 42 AS answer\").fetchall()\nas_pandas_free = duckdb.sql(\"SELECT * FROM sales WHERE revenue > 90\").pl()\nper_city\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idiomatic_altair_polars_and_duckdb_cells_pass_the_checks() {
    let mut code =
        String::from("import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n");
    for (name, cell) in IDIOMATIC_CELLS {
        code.push_str(&format!(
            "    ctx.run_cell(ctx.create_cell({cell:?}, name={name:?}))\n"
        ));
    }
    let ty = hailer_tests::prereqs::kernel_venv().join("bin/ty");
    let ruff = hailer_tests::prereqs::kernel_venv().join("bin/ruff");
    let checks = format!("ty = \"{}\"\nruff = \"{}\"\n", ty.display(), ruff.display());
    let calls = [("marimo_execute", json!({"code": code}))];
    let (_workspace, model, output) = turn_with_calls(&calls, &[("[checks]", &checks)]).await;
    assert!(output.status.success(), "{output:?}");
    let text = &tool_results(&model)[0].1;
    assert!(
        text.contains("Code checks (ruff, ty) on 4 changed cells: no findings."),
        "{text}"
    );
    assert!(!text.contains("Traceback"), "the cells ran: {text}");
}
