//! Agent turns through hailerd with the scripted model and a real unsafe-local kernel.

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::workspace::SCRIPTED_KEY as KEY;
use serde_json::{Value, json};

pub(super) fn workspace_for(model: &ScriptedModel, wire_api: &str, stream: bool) -> TestWorkspace {
    TestWorkspace::scripted_with(&model.base_url(), wire_api, stream)
}

pub(super) fn events(output: &std::process::Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|envelope| envelope["event"].clone())
        .collect()
}

async fn two_step_turn(wire_api: &str, stream: bool) {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6*7)"}),
        ))
        .reply(Reply::text("The answer is 42, computed in the kernel.").in_deltas(5));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model, wire_api, stream);
    let output = tokio::task::block_in_place(|| {
        workspace.hailer(&["run", "--json", "What is six times seven?"])
    });
    assert!(output.status.success(), "{output:?}");
    let events = events(&output);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let position = |kind: &str| kinds.iter().position(|k| *k == kind).unwrap_or(usize::MAX);
    assert!(
        position("turnStarted") < position("toolCallStarted"),
        "{kinds:?}"
    );
    assert!(
        position("toolCallStarted") < position("toolCallFinished"),
        "{kinds:?}"
    );
    assert!(
        position("toolCallFinished") < position("turnFinished"),
        "{kinds:?}"
    );
    let tool = events
        .iter()
        .find(|e| e["type"] == "toolCallFinished")
        .unwrap();
    assert_eq!(tool["name"], "marimo_execute");
    assert_eq!(tool["ok"], true, "{tool}");
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "textDelta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    let finished = events.iter().find(|e| e["type"] == "turnFinished").unwrap();
    assert_eq!(
        finished["text"],
        "The answer is 42, computed in the kernel."
    );
    if stream {
        assert_eq!(
            deltas,
            finished["text"].as_str().unwrap(),
            "deltas add up to the answer"
        );
        assert!(
            events.iter().filter(|e| e["type"] == "textDelta").count() >= 2,
            "streamed in pieces"
        );
    }

    // The model saw the kernel's output as the tool result, and the key only as a credential.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let second = serde_json::to_string(&requests[1].body).unwrap();
    assert!(second.contains("42"), "{second}");
    assert_eq!(requests[0].bearer_token(), Some(KEY));
    let first = serde_json::to_string(&requests[0].body).unwrap();
    assert!(!first.contains(KEY));
    assert!(first.contains("marimo_execute") && first.contains("marimo_status"));
    assert!(
        !String::from_utf8_lossy(&output.stdout).contains(KEY),
        "key in an event"
    );
    assert!(
        !workspace.daemon_log().contains(KEY),
        "key in the daemon log"
    );

    // The conversation is stored and resumed.
    let threads = workspace.path().join(".hailer/threads.sqlite");
    assert!(threads.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_step_turn_over_chat_completions_streaming() {
    two_step_turn("chat", true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_step_turn_over_responses_without_streaming() {
    two_step_turn("responses", false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_fails_the_turn_with_the_command_that_fixes_it() {
    let model = ScriptedModel::start(Script::new().reply_text("unused"))
        .await
        .unwrap();
    let workspace = workspace_for(&model, "chat", true);
    let mut command = std::process::Command::new(hailer_tests::bins::path("hailer"));
    command
        .args(["run", "hello"])
        .current_dir(workspace.path())
        .env("HAILER_HOME", workspace.home.path())
        .env("HAILER_DAEMON_BIN", hailer_tests::bins::path("hailerd"))
        .env(
            hailer_tests::kernel_envs::VARIABLE,
            hailer_tests::kernel_envs::shared(),
        )
        .env_remove("SCRIPTED_KEY");
    let output = tokio::task::block_in_place(|| command.output().unwrap());
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("hailer login scripted") || said.contains("SCRIPTED_KEY"),
        "{said}"
    );
    assert!(model.requests().is_empty(), "no request without a key");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_stops_early_ends_hailer_run_quietly() {
    let script = Script::new().reply(Reply::text("Many words, many events.").in_deltas(40));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model, "chat", true);
    let output = tokio::task::block_in_place(|| {
        use std::io::BufRead as _;
        let mut child = workspace
            .command(&["run", "--json", "Say a lot."])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // `| head -1`: one line, then the pipe is closed.
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.starts_with('{'), "{first}");
        child.wait_with_output().unwrap()
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}
