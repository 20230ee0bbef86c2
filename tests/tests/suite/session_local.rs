//! A workspace session with the unsafe-local kernel, driven through hailerd with no browser.

use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;
use hailer_tests::workspace::{all_command_lines, kernels_of, marimo_servers_in};
use serde_json::{Value, json};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn exec_prints_and_sees_the_starter_notebook_globals() {
    let workspace = TestWorkspace::unsafe_local();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\nsouth,32\n");
    let answer = workspace.hailer(&["exec", "-c", "print(6*7)"]);
    assert!(answer.status.success(), "{answer:?}");
    assert_eq!(stdout(&answer).trim(), "42");

    // The starter notebook's cells ran: its globals exist in the kernel.
    let globals = workspace.hailer(&[
        "exec",
        "-c",
        "print(DATA_DIR.name, sorted(f.name for f in data_files), WORKSPACE == DATA_DIR.parent)",
    ]);
    assert!(globals.status.success(), "{globals:?}");
    assert_eq!(stdout(&globals).trim(), "data ['sales.csv'] True");

    // A value is shown as text; a failure exits 1 with the traceback on stderr.
    let value = workspace.hailer(&["exec", "-c", "21 * 2"]);
    assert_eq!(stdout(&value).trim(), "42");
    let failed = workspace.hailer(&["exec", "-c", "1/0"]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("ZeroDivisionError"));

    // Code from standard input and from a file.
    let mut piped = workspace.command(&["exec", "-"]);
    piped
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = piped.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"print('from stdin')\n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(stdout(&output).trim(), "from stdin");
    workspace.write("snippet.py", "print(len(data_files))\n");
    let from_file = workspace.hailer(&["exec", "snippet.py"]);
    assert_eq!(stdout(&from_file).trim(), "1");
}

#[test]
fn secrets_stay_out_of_the_kernel_and_the_token_out_of_argv_and_logs() {
    let planted = [
        ("OPENAI_API_KEY", "sk-planted-openai-0001"),
        ("FOO_API_KEY", "planted-foo-key-0002"),
        ("PGPASSWORD", "planted-pg-0003"),
        ("DB_CONNECTION_STRING", "postgres://u:p@h/db-0004"),
        ("MYCORP_LLM_CREDENTIAL", "planted-provider-0005"),
        ("some_token", "planted-lowercase-0006"),
        ("HARMLESS_SETTING", "kept-0007"),
    ];
    let workspace = TestWorkspace::unsafe_local_with_env(
        planted
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect(),
    );
    // A custom provider whose key variable has no secret-looking suffix.
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &format!(
            "{toml}\n[model_providers.mycorp]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"MYCORP_LLM_CREDENTIAL\"\n"
        ),
    );
    let seen = workspace.hailer(&[
        "exec",
        "-c",
        "import os, json; print(json.dumps(dict(os.environ)))",
    ]);
    assert!(seen.status.success(), "{seen:?}");
    let environ: std::collections::BTreeMap<String, String> =
        serde_json::from_str(stdout(&seen).trim()).unwrap();
    for (name, value) in &planted[..6] {
        assert!(!environ.contains_key(*name), "{name} reached the kernel");
        assert!(
            !environ.values().any(|v| v.contains(value)),
            "{name}'s value reached the kernel"
        );
    }
    // hailerd runs with the minimal environment, and the kernel starts from hailerd's: a
    // setting of the shell that hailerd does not need stays out too; what it needs is there.
    assert!(
        !environ.contains_key("HARMLESS_SETTING"),
        "a variable hailerd does not keep reached the kernel"
    );
    assert!(environ.contains_key("PATH"), "{environ:?}");

    // The marimo token: in the signed link only, never in an argv or the daemon's log.
    let (_, _, token) = workspace.api();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let link = runtime.block_on(async {
        let sessions: Value = workspace.get_json("/v1/sessions").await;
        let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
        let change = workspace
            .post_json(
                &format!("/v1/sessions/{id}/notebooks/open"),
                &json!({"notebook": "analysis"}),
            )
            .await;
        change["link"].as_str().unwrap().to_owned()
    });
    let marimo_token = link.split("access_token=").nth(1).unwrap().to_owned();
    assert!(marimo_token.len() >= 32, "{link}");
    assert!(
        !all_command_lines().contains(&marimo_token),
        "kernel token in an argv"
    );
    assert!(
        !all_command_lines().contains(&token),
        "daemon token in an argv"
    );
    let log = workspace.daemon_log();
    assert!(
        !log.contains(&marimo_token) && !log.contains(&token),
        "a token in the log"
    );
    for (_, value) in &planted {
        assert!(!log.contains(value), "{value} in the daemon log");
    }
}

async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = client.request(method, url).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notebooks_are_listed_created_opened_and_closed_by_name() {
    let workspace = TestWorkspace::unsafe_local();
    let (client, base, token) = tokio::task::block_in_place(|| {
        assert!(workspace.hailer(&["exec", "-c", "pass"]).status.success());
        workspace.api()
    });
    let (_, sessions) = call(
        &client,
        reqwest::Method::GET,
        format!("{base}/v1/sessions"),
        &token,
        None,
    )
    .await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(sessions["sessions"][0]["runtime"], "unsafe-local");
    assert_eq!(
        sessions["sessions"][0]["kernelLine"],
        "unsafe-local (runs as you; not isolated)"
    );
    let url = |tail: &str| format!("{base}/v1/sessions/{id}{tail}");

    let (status, created) = call(
        &client,
        reqwest::Method::POST,
        url("/notebooks"),
        &token,
        Some(json!({"name": "Sales Report (Q3)", "template": "empty"})),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["notebook"], "sales_report_q3.py");
    assert!(created["link"].as_str().unwrap().contains("access_token="));
    let on_disk =
        std::fs::read_to_string(workspace.path().join("notebooks/sales_report_q3.py")).unwrap();
    assert!(on_disk.contains("marimo.App("));

    let (status, again) = call(
        &client,
        reqwest::Method::POST,
        url("/notebooks"),
        &token,
        Some(json!({"name": "sales report q3"})),
    )
    .await;
    assert_eq!(status, 409, "{again}");

    let (_, listed) = call(
        &client,
        reqwest::Method::GET,
        url("/notebooks"),
        &token,
        None,
    )
    .await;
    assert_eq!(listed["active"], "sales_report_q3.py");
    let entries = listed["notebooks"].as_array().unwrap();
    let names: Vec<&str> = entries
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["analysis.py", "sales_report_q3.py"]);
    assert!(entries.iter().all(|e| e["open"] == true), "{listed}");

    // Code runs in the active notebook's kernel: the empty template defines no DATA_DIR.
    let (_, ran) = call(
        &client,
        reqwest::Method::POST,
        url("/exec"),
        &token,
        Some(json!({"code": "print('DATA_DIR' in globals())"})),
    )
    .await;
    assert_eq!(ran["stdout"].as_str().unwrap().trim(), "False", "{ran}");
    assert_eq!(ran["notebook"], "sales_report_q3.py");

    let (status, opened) = call(
        &client,
        reqwest::Method::POST,
        url("/notebooks/open"),
        &token,
        Some(json!({"notebook": "ANALYSIS"})),
    )
    .await;
    assert_eq!(status, 200, "{opened}");
    assert_eq!(opened["active"], "analysis.py");
    let state: Value = serde_json::from_slice(
        &std::fs::read(workspace.path().join(".hailer/notebook.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["active"], "analysis.py");
    assert_eq!(state["recent"][1], "sales_report_q3.py");

    for (reference, expected) in [
        ("../hailer.toml", 400),
        ("/etc/passwd", 400),
        ("missing", 404),
    ] {
        let (status, body) = call(
            &client,
            reqwest::Method::POST,
            url("/notebooks/open"),
            &token,
            Some(json!({"notebook": reference})),
        )
        .await;
        assert_eq!(status, expected, "{reference}: {body}");
        assert!(body["message"].as_str().is_some(), "{body}");
    }
    let (_, missing) = call(
        &client,
        reqwest::Method::POST,
        url("/notebooks/open"),
        &token,
        Some(json!({"notebook": "missing"})),
    )
    .await;
    assert!(
        missing["message"]
            .as_str()
            .unwrap()
            .contains("sales_report_q3.py"),
        "{missing}"
    );

    let (status, closed) = call(
        &client,
        reqwest::Method::POST,
        url("/notebooks/close"),
        &token,
        Some(json!({"notebook": "sales_report_q3"})),
    )
    .await;
    assert_eq!(status, 200, "{closed}");
    let (_, listed) = call(
        &client,
        reqwest::Method::GET,
        url("/notebooks"),
        &token,
        None,
    )
    .await;
    let sales = listed["notebooks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "sales_report_q3.py")
        .unwrap()
        .clone();
    assert_eq!(sales["open"], false, "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_clear_errors_and_change_nothing() {
    let workspace = TestWorkspace::unsafe_local();
    let (client, base, token) = tokio::task::block_in_place(|| {
        assert!(workspace.hailer(&["exec", "-c", "pass"]).status.success());
        workspace.api()
    });
    let (_, sessions) = call(
        &client,
        reqwest::Method::GET,
        format!("{base}/v1/sessions"),
        &token,
        None,
    )
    .await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();

    let raw = |path: String, body: &'static str| {
        client
            .post(format!("{base}{path}"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    for (path, body) in [
        (format!("/v1/sessions/{id}/exec"), "{not json"),
        (format!("/v1/sessions/{id}/exec"), "{\"code\": 5}"),
        (format!("/v1/sessions/{id}/exec"), "[]"),
        (format!("/v1/sessions/{id}/notebooks"), "{\"name\": \"\"}"),
        (
            format!("/v1/sessions/{id}/notebooks"),
            "{\"name\": \"../../evil\"}",
        ),
        (
            format!("/v1/sessions/{id}/notebooks"),
            "{\"name\": \"x\", \"template\": \"nope\"}",
        ),
        ("/v1/sessions".to_owned(), "{\"cwd\": \"relative/path\"}"),
        ("/v1/sessions".to_owned(), "{}"),
    ] {
        let response = raw(path.clone(), body).await.unwrap();
        let status = response.status().as_u16();
        let answer: Value = response.json().await.unwrap();
        assert_eq!(status, 400, "{path} {body}: {answer}");
        assert!(
            answer["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{answer}"
        );
    }
    let (status, body) = call(
        &client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions/{id}/exec"),
        &token,
        Some(json!({"code": "print('a\u{0}b')"})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    let (status, _) = call(
        &client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions/s_nope/exec"),
        &token,
        Some(json!({"code": "pass"})),
    )
    .await;
    assert_eq!(status, 404);
    let nowhere = workspace.path().join("does-not-exist");
    let (status, body) = call(
        &client,
        reqwest::Method::POST,
        format!("{base}/v1/sessions"),
        &token,
        Some(json!({"cwd": workspace.path(), "workspace": nowhere})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "invalid_config");
    // Nothing was created by the refusals.
    let names: Vec<String> = std::fs::read_dir(workspace.path().join("notebooks"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".py"))
        .collect();
    assert_eq!(names, ["analysis.py"]);
}

#[test]
fn a_killed_kernel_fails_the_run_in_time_and_the_next_run_recovers() {
    let workspace = TestWorkspace::unsafe_local();
    assert!(workspace.hailer(&["exec", "-c", "pass"]).status.success());
    let server = marimo_servers_in(&workspace.canonical())
        .into_iter()
        .next()
        .expect("the workspace's marimo server");
    let kernels = kernels_of(server);
    assert!(!kernels.is_empty(), "the server has a kernel process");

    let started = Instant::now();
    let mut long_run = workspace.command(&[
        "exec",
        "--timeout",
        "20",
        "-c",
        "import time; time.sleep(60)",
    ]);
    let child = long_run
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    for kernel in kernels {
        let _ = hailer_tests::daemon::signal(kernel, nix::sys::signal::Signal::SIGKILL);
    }
    let failed = child.wait_with_output().unwrap();
    assert!(!failed.status.success());
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "the run ended within its deadline"
    );
    let said = String::from_utf8_lossy(&failed.stderr);
    assert!(said.to_lowercase().contains("kernel"), "{said}");

    let recovered = workspace.hailer(&["exec", "-c", "print('back', 'DATA_DIR' in globals())"]);
    assert!(recovered.status.success(), "{recovered:?}");
    assert_eq!(stdout(&recovered).trim(), "back True");
    assert!(
        String::from_utf8_lossy(&recovered.stderr).contains("restarted"),
        "the recovery is reported: {recovered:?}"
    );
}

#[test]
fn a_session_without_clients_stops_after_its_linger_time() {
    let workspace = TestWorkspace::unsafe_local();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let toml = toml.replace("[daemon]\n", "[daemon]\nsession_linger_secs = 1\n");
    assert!(toml.contains("session_linger_secs = 1"));
    workspace.write("hailer.toml", &toml);
    let ran = workspace.hailer(&["exec", "-c", "pass"]);
    assert!(ran.status.success(), "{ran:?}");
    let marimo_running = || !marimo_servers_in(&workspace.canonical()).is_empty();
    assert!(marimo_running());
    let leftovers = || {
        workspace
            .path()
            .join(".hailer")
            .read_dir()
            .unwrap()
            .flatten()
            .any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with("owner-") || name.starts_with("marimo-")
            })
    };
    assert!(
        leftovers(),
        "a live session holds its owner lock and kernel log"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while marimo_running() || leftovers() {
        assert!(
            Instant::now() < deadline,
            "the session did not linger out and clean up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = workspace.hailer(&["daemon", "status", "--json"]);
    let info: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(info["sessions"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_with_no_notebook_named_opens_the_configured_one_in_a_fresh_workspace() {
    let workspace = TestWorkspace::unsafe_local();
    let ran = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(ran.status.success(), "{ran:?}");
    let sessions: serde_json::Value = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    assert!(
        sessions["sessions"][0]["activeNotebook"].is_null(),
        "a fresh workspace has chosen no notebook: {sessions}"
    );
    // What the chat's /open sends in a fresh workspace.
    let change = workspace
        .post_json(
            &format!("/v1/sessions/{id}/notebooks/open"),
            &serde_json::json!({"notebook": ""}),
        )
        .await;
    assert_eq!(change["notebook"], "analysis.py", "{change}");
    assert!(
        change["link"]
            .as_str()
            .is_some_and(|link| link.contains("analysis.py")),
        "{change}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

/// A kernel that ends on its own is reported with what to do next: in the kernel event every
/// client gets, in the session's state `hailer status` reads, and in `hailer status` itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kernel_that_ends_on_its_own_says_what_to_do_next() {
    let workspace = TestWorkspace::unsafe_local();
    let mut live = hailer_tests::live::LiveSession::start(&workspace).await;
    let (status, body) = live.post("/exec", json!({"code": "pass"})).await;
    assert_eq!(status, 200, "{body}");
    let servers = marimo_servers_in(&workspace.canonical());
    assert_eq!(servers.len(), 1, "the workspace's marimo server");
    hailer_tests::daemon::signal(servers[0], nix::sys::signal::Signal::SIGKILL).unwrap();

    let failed = loop {
        let (_, event, _) = live.until("kernel").await;
        if event["status"] == "failed" {
            break event;
        }
    };
    assert!(
        failed["message"].as_str().unwrap_or("").contains("SIGKILL"),
        "{failed}"
    );
    let hint = failed["hint"]
        .as_str()
        .unwrap_or_else(|| panic!("no hint: {failed}"));
    assert!(hint.contains("new session"), "{failed}");
    let info = workspace
        .get_json(&format!("/v1/sessions/{}", live.id))
        .await;
    assert_eq!(info["kernelHint"], hint, "{info}");
    let status = tokio::task::block_in_place(|| workspace.hailer(&["status"]));
    assert!(
        stdout(&status).contains(&format!("hint:     {hint}")),
        "{}",
        stdout(&status)
    );
}
