//! One live session follows the user: settings and keys changed between turns apply to the next
//! turn without restarting hailerd, changed kernel settings restart the kernel and say so,
//! clients that attach later see the conversation so far, and Ctrl+C keeps what was typed.
//! Real hailerd, real kernels, scripted models.

use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel, Wire};
use hailer_tests::browser::Browser;
use hailer_tests::live::{LiveSession, subscribe};
use hailer_tests::{TestWorkspace, TmuxPane};
use serde_json::{Value, json};

const SHORT: Duration = Duration::from_secs(20);
const WAIT: Duration = Duration::from_secs(60);

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run(workspace: &TestWorkspace, question: &str) -> String {
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", question]));
    assert!(output.status.success(), "{}", said(&output));
    said(&output)
}

fn edit_toml(workspace: &TestWorkspace, edit: impl Fn(String) -> String) {
    let path = workspace.path().join("hailer.toml");
    let before = std::fs::read_to_string(&path).unwrap();
    let after = edit(before.clone());
    assert_ne!(before, after, "the edit changed nothing");
    std::fs::write(&path, after).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_endpoint_wire_api_and_key_variable_apply_to_the_next_turn() {
    let first = ScriptedModel::start(Script::new().reply_text("From the first endpoint."))
        .await
        .unwrap();
    let second = ScriptedModel::start(Script::new().reply_text("From the second endpoint."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted_with(&first.base_url(), "chat", true);
    let first_run = run(&workspace, "The first question");
    assert!(
        first_run.contains("From the first endpoint."),
        "{first_run}"
    );
    // It ends with the notebook the answer's work is in.
    let notebook = workspace.canonical().join("notebooks").join("analysis.py");
    assert!(
        first_run
            .trim_end()
            .ends_with(&format!("Notebook: {}", notebook.display())),
        "{first_run}"
    );
    let daemon = workspace.runtime().pid;
    let session = workspace.get_json("/v1/sessions").await["sessions"][0]["id"].clone();

    edit_toml(&workspace, |toml| {
        toml.replace(&first.base_url(), &second.base_url())
            .replace("wire_api = \"chat\"", "wire_api = \"responses\"")
            .replace("env_key = \"SCRIPTED_KEY\"", "env_key = \"RENAMED_KEY\"")
    });
    // The provider's endpoint and key variable changed: trusted again, as a user would.
    let trusted = tokio::task::block_in_place(|| workspace.hailer(&["trust", "--yes"]));
    assert!(trusted.status.success(), "{}", said(&trusted));
    let output = tokio::task::block_in_place(|| {
        workspace
            .command(&["run", "The second question"])
            .env_remove("SCRIPTED_KEY")
            .env("RENAMED_KEY", "renamed-key-5d81c0")
            .output()
            .unwrap()
    });
    assert!(output.status.success(), "{}", said(&output));
    assert!(said(&output).contains("From the second endpoint."));

    assert_eq!(workspace.runtime().pid, daemon, "hailerd was not restarted");
    let sessions = workspace.get_json("/v1/sessions").await;
    assert_eq!(sessions["sessions"][0]["id"], session, "{sessions}");
    assert_eq!(
        first.requests().len(),
        1,
        "the old endpoint was called again"
    );
    let requests = second.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].wire, Wire::Responses);
    assert_eq!(requests[0].bearer_token(), Some("renamed-key-5d81c0"));
    // The same conversation goes on at the new endpoint.
    let sent = requests[0].body.to_string();
    assert!(sent.contains("The first question"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_exported_after_a_refusal_is_used_without_a_restart() {
    let model = ScriptedModel::start(Script::new().reply_text("Now with a key."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let refused = tokio::task::block_in_place(|| {
        workspace
            .command(&["run", "Without a key"])
            .env_remove("SCRIPTED_KEY")
            .output()
            .unwrap()
    });
    assert!(!refused.status.success());
    assert!(
        said(&refused).contains("SCRIPTED_KEY"),
        "{}",
        said(&refused)
    );
    let info = workspace.get_json("/v1/sessions").await;
    let problem = &info["sessions"][0]["agentProblem"]["message"];
    assert!(
        problem
            .as_str()
            .unwrap_or_default()
            .contains("SCRIPTED_KEY"),
        "{info}"
    );
    let status = tokio::task::block_in_place(|| workspace.hailer(&["status"]));
    let status = said(&status);
    assert!(
        status.contains("agent:    not available:") && status.contains("SCRIPTED_KEY"),
        "{status}"
    );

    assert!(run(&workspace, "With the key").contains("Now with a key."));
    let info = workspace.get_json("/v1/sessions").await;
    assert_eq!(info["sessions"].as_array().unwrap().len(), 1, "{info}");
    assert!(
        info["sessions"][0].get("agentProblem").is_none(),
        "the session still reports the missing key: {info}"
    );
    let status = tokio::task::block_in_place(|| workspace.hailer(&["status"]));
    assert!(said(&status).contains("(ready)"), "{}", said(&status));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_memory_limit_is_announced_and_the_kernel_restarts_with_it() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let first = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "-c", "marker = 1\nprint('first run')"])
    });
    assert!(first.status.success(), "{}", said(&first));
    let (_, base, token) = workspace.api();
    let id = workspace.get_json("/v1/sessions").await["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut events = subscribe(&base, &token, &id).await;

    edit_toml(&workspace, |toml| {
        toml.replacen("# memory = \"4g\"", "memory = \"700m\"", 1)
    });
    let second = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "-c", "print('marker' in globals())"])
    });
    assert!(second.status.success(), "{}", said(&second));
    assert!(
        said(&second).contains("False"),
        "the kernel was not restarted: {}",
        said(&second)
    );

    let deadline = Instant::now() + WAIT;
    let announced = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let (_, event) = tokio::time::timeout(left, events.recv())
            .await
            .expect("no announcement of the restart")
            .expect("the event stream ended");
        if event["type"] == "notice"
            && let Some(message) = event["message"].as_str()
            && message.starts_with("The kernel restarts to apply")
        {
            break message.to_owned();
        }
    };
    assert!(announced.contains("memory 4g → 700m"), "{announced}");

    let containers = workspace.docker_containers();
    let kernels: Vec<&String> = containers
        .iter()
        .filter(|name| name.starts_with("hailer-kernel-"))
        .collect();
    assert_eq!(
        kernels.len(),
        1,
        "the old kernel is still there: {containers:?}"
    );
    let limit = std::process::Command::new("docker")
        .args(["inspect", "--format", "{{.HostConfig.Memory}}", kernels[0]])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&limit.stdout).trim(),
        (700u64 * 1024 * 1024).to_string()
    );
}

fn two_turns() -> Script {
    Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6 * 7)"}),
        ))
        .reply_text("The first answer is 42.")
        .reply_text("The second answer.")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attaching_clients_are_sent_the_conversation_so_far_and_new_clears_it() {
    let model = ScriptedModel::start(two_turns()).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    run(&workspace, "The first question");
    run(&workspace, "The second question");
    let mut live = LiveSession::start(&workspace).await;
    let (_, attached, _) = live.until("attached").await;
    assert_eq!(attached["type"], "attached");
    let (_, history, _) = live.until("history").await;
    let turns = history["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{history}");
    assert_eq!(turns[0]["text"], "The first question");
    assert_eq!(turns[0]["answer"], "The first answer is 42.");
    assert_eq!(turns[0]["tools"][0]["name"], "marimo_execute");
    assert_eq!(turns[0]["tools"][0]["ok"], true);
    assert!(
        turns[0]["tools"][0]["preview"]
            .as_str()
            .unwrap()
            .contains("print(6 * 7)"),
        "{history}"
    );
    assert_eq!(turns[1]["answer"], "The second answer.");

    let (status, body) = live.post("/conversation", json!({"model": null})).await;
    assert_eq!(status, 200, "{body}");
    let mut later = live.subscribe().await;
    let (_, history, _) = hailer_tests::live::until(&mut later, "history").await;
    assert_eq!(history["turns"], Value::Array(Vec::new()), "{history}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_opened_later_shows_both_questions_and_answers() {
    let model = ScriptedModel::start(two_turns()).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    run(&workspace, "The first question");
    run(&workspace, "The second question");
    tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        let screen = pane.wait_for("(end of the earlier turns)", SHORT);
        for seen in [
            "The conversation so far (2 turns)",
            "asked > The first question",
            "marimo_execute",
            "The first answer is 42.",
            "asked > The second question",
            "The second answer.",
        ] {
            assert!(screen.contains(seen), "{seen:?} is missing:\n{screen}");
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_opened_later_shows_both_questions_and_answers() {
    let model = ScriptedModel::start(two_turns()).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    run(&workspace, "The first question");
    run(&workspace, "The second question");
    let output = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(output.status.success(), "{}", said(&output));
    let link = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    let shown = browser
        .wait_for(
            "the earlier turns",
            "const text = [...document.querySelectorAll('.msg')].map(n => n.textContent).join('\\n'); \
             return text.includes('The second answer.') && text",
            WAIT,
        )
        .await
        .unwrap();
    let shown = shown.as_str().unwrap();
    for seen in [
        "The first question",
        "marimo_execute",
        "print(6 * 7)",
        "The first answer is 42.",
        "The second question",
    ] {
        assert!(shown.contains(seen), "{seen:?} is missing: {shown}");
    }
    let users = browser
        .eval("return document.querySelectorAll('.msg.user').length")
        .await
        .unwrap();
    assert_eq!(users, 2);
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_another_clients_turn_keeps_the_half_typed_line() {
    let lines: Vec<String> = (1..=60)
        .map(|n| format!("Line {n} of a long answer."))
        .collect();
    let script = Script::new()
        .reply(
            Reply::text(lines.join("\n"))
                .in_deltas(120)
                .delta_delay(Duration::from_millis(200)),
        )
        .reply_text("Got the whole line.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Web access:", SHORT);
        pane.type_text("half a line");
        pane.wait_for("› half a line", SHORT);
        let mut other = workspace
            .command(&["run", "A question from elsewhere"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        pane.wait_for("A question from elsewhere", SHORT);
        pane.wait_for("Line 2 of a long answer.", SHORT);
        pane.keys(&["C-c"]);
        pane.wait_for("Interrupted.", SHORT);
        assert!(pane.pid().is_some(), "the chat ended:\n{}", pane.screen());
        // The kept text is in the editor: finishing the line sends all of it.
        pane.type_line(" and the rest");
        pane.wait_for("Got the whole line.", SHORT);
        let _ = other.wait();
    });
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body.to_string();
    assert!(sent.contains("half a line and the rest"), "{sent}");
}

#[test]
fn outside_a_workspace_the_chat_says_so_before_it_takes_the_terminal() {
    let folder = TestWorkspace::empty(Vec::new());
    let output = folder.hailer(&["notebook", "--no-browser"]);
    assert_eq!(output.status.code(), Some(1), "{}", said(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("hailer: ")
            && first.ends_with(
                "no hailer.toml was found here or in any folder above, so this is not a Hailer \
                 workspace"
            ),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Run `hailer init`").count(), 1, "{stderr}");
    assert!(output.stdout.is_empty(), "{}", said(&output));
    // Nothing was started for it.
    assert!(
        !folder.home.path().join("run").join("hailerd.json").exists(),
        "hailerd was started for a folder that is not a workspace"
    );
}
