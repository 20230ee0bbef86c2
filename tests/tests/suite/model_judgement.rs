//! `hailer doctor`, `hailer status` and a live session judge the model settings and the key the
//! same way: hailerd makes the one judgement and each of them prints it. A key the shell sets
//! but the session cannot send, a key nowhere, and a good key read the same in all three.

use std::process::Output;

use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE};
use serde_json::{Value, json};

/// A key with a control character: set in the shell, so a look at the shell alone passes it,
/// but no HTTP header can carry it.
const UNSENDABLE_KEY: &str = "scripted\u{1}key-5d2e";

/// `hailer <args>` with the key variable set to `key`, or removed.
fn with_key(workspace: &TestWorkspace, args: &[&str], key: Option<&str>) -> Output {
    let mut command = workspace.command(args);
    match key {
        Some(key) => command.env(SCRIPTED_KEY_VARIABLE, key),
        None => command.env_remove(SCRIPTED_KEY_VARIABLE),
    };
    tokio::task::block_in_place(|| command.output().unwrap())
}

/// What `hailer doctor --json` says about the credentials, as (verdict, summary).
fn doctor_says(workspace: &TestWorkspace, key: Option<&str>) -> (String, String) {
    let output = with_key(workspace, &["doctor", "--json"], key);
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {output:?}"));
    let row = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["check"] == "credentials")
        .unwrap_or_else(|| panic!("no credentials row: {report}"))
        .clone();
    (
        row["verdict"].as_str().unwrap().to_owned(),
        row["summary"].as_str().unwrap().to_owned(),
    )
}

/// What `hailer status --json` says about this workspace's credentials.
fn status_says(workspace: &TestWorkspace, key: Option<&str>) -> String {
    let output = with_key(workspace, &["status", "--json"], key);
    let status: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {output:?}"));
    status["workspace"]["credentials"]
        .as_str()
        .unwrap_or_else(|| panic!("no credentials: {status}"))
        .to_owned()
}

/// Why the live session's agent cannot answer, if it says so.
async fn session_says(workspace: &TestWorkspace) -> Option<String> {
    let info = workspace.get_json("/v1/sessions").await;
    info["sessions"][0]["agentProblem"]["message"]
        .as_str()
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_status_and_the_session_give_one_judgement() {
    let model = ScriptedModel::start(Script::new().reply_text("Answered with the good key."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());

    // No key anywhere yet: the same sentence from all three, naming the variable. (Once a client
    // sent a key, the live session keeps it: a client without one takes nothing away.)
    let missing = with_key(&workspace, &["run", "First question"], None);
    assert!(!missing.status.success(), "{missing:?}");
    let problem = session_says(&workspace)
        .await
        .expect("the session names the problem");
    assert!(problem.contains(SCRIPTED_KEY_VARIABLE), "{problem}");
    assert_eq!(
        doctor_says(&workspace, None),
        ("FAIL".to_owned(), problem.clone())
    );
    assert_eq!(status_says(&workspace, None), problem);

    // A key the session cannot send: the turn is refused, and doctor and status say why in
    // the session's own words, without the key.
    let refused = with_key(
        &workspace,
        &["run", "Second question"],
        Some(UNSENDABLE_KEY),
    );
    assert!(!refused.status.success(), "{refused:?}");
    let problem = session_says(&workspace)
        .await
        .expect("the session names the problem");
    let (verdict, summary) = doctor_says(&workspace, Some(UNSENDABLE_KEY));
    assert_eq!(
        (verdict.as_str(), summary.as_str()),
        ("FAIL", problem.as_str())
    );
    assert_eq!(status_says(&workspace, Some(UNSENDABLE_KEY)), problem);
    for said in [&problem, &summary] {
        assert!(!said.contains("5d2e"), "the key is shown: {said}");
    }

    // The good key: all three agree it is there, and the turn is answered.
    let expected = format!("{SCRIPTED_KEY_VARIABLE} from the environment");
    assert_eq!(
        doctor_says(&workspace, Some(SCRIPTED_KEY)),
        ("OK".to_owned(), expected.clone())
    );
    assert_eq!(status_says(&workspace, Some(SCRIPTED_KEY)), expected);
    let answered = with_key(&workspace, &["run", "Third question"], Some(SCRIPTED_KEY));
    assert!(answered.status.success(), "{answered:?}");
    assert!(
        String::from_utf8_lossy(&answered.stdout).contains("Answered with the good key."),
        "{answered:?}"
    );
    assert_eq!(session_says(&workspace).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_route_refuses_bad_requests_and_never_echoes_a_key() {
    let workspace = TestWorkspace::scripted("http://127.0.0.1:9");
    let started = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "start"]));
    assert!(started.status.success(), "{started:?}");
    let (client, base, token) = workspace.api();
    let cwd = workspace.path().display().to_string();
    let hostile = [
        json!({"cwd": "relative/folder"}),
        json!({"workspace": cwd}),
        json!({"cwd": cwd, "env": {"SCRIPTED_KEY": 12}}),
        json!({"cwd": cwd, "env": ["SCRIPTED_KEY"]}),
        json!({"cwd": cwd, "config": "/nonexistent/hailer-test/hailer.toml"}),
        json!({"cwd": cwd, "env": {"HAILER_KERNEL": "somewhere-else"}}),
        json!({"cwd": cwd, "model": 7}),
        json!("not an object"),
    ];
    for body in hostile {
        let response = client
            .post(format!("{base}/v1/credentials/check"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let reply: Value = response.json().await.unwrap_or(Value::Null);
        assert!(status.is_client_error(), "{body}: {status} {reply}");
        assert!(
            reply["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}: {reply}"
        );
    }
    // A provider the configuration does not declare is refused as the session start would be,
    // naming it, and the key sent along is not repeated.
    let undeclared = client
        .post(format!("{base}/v1/credentials/check"))
        .bearer_auth(&token)
        .json(
            &json!({"cwd": cwd, "model": "nowhere:m", "env": {"SCRIPTED_KEY": "sk-never-echoed"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(undeclared.status(), 422);
    let reply = undeclared.text().await.unwrap();
    assert!(reply.contains("nowhere"), "{reply}");
    assert!(!reply.contains("sk-never-echoed"), "{reply}");
    // A key sent with the request is judged, never repeated.
    let judged = client
        .post(format!("{base}/v1/credentials/check"))
        .bearer_auth(&token)
        .json(&json!({"cwd": cwd, "env": {"SCRIPTED_KEY": "sk-never-echoed"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(judged.status(), 200);
    let reply = judged.text().await.unwrap();
    assert!(
        reply.contains("SCRIPTED_KEY from the environment"),
        "{reply}"
    );
    assert!(!reply.contains("sk-never-echoed"), "{reply}");
    assert!(
        !workspace.daemon_log().contains("sk-never-echoed"),
        "the key reached the log"
    );

    let unauthenticated = client
        .post(format!("{base}/v1/credentials/check"))
        .json(&json!({"cwd": cwd}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthenticated.status(), 401);
}
