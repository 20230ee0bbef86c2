//! schemathesis against the operations that start sessions and run what it makes up: the session
//! start, a run of code, a turn and the isolation probe. Its hooks (tests/schemathesis_hooks.py)
//! keep every session in a throwaway workspace and every kernel in the sandbox; the scripted
//! model answers the turns. Afterwards no session and no kernel is left.

use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE, descendants};
use hailer_tests::{TestWorkspace, prereqs};
use serde_json::{Value, json};

use super::api_for_programs::{Target, repository, schemathesis};

/// The operations this test fuzzes, each with a few examples only: each run of code and each
/// turn goes through a real kernel.
const FUZZED: &[&str] = &["startSession", "execCode", "startTurn", "probe"];

/// Examples per operation.
const EXAMPLES: &str = "8";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_starts_sessions_runs_code_and_turns_only_in_a_sandbox() {
    let venv = prereqs::api_venv();
    let document = repository().join("docs/openapi.json");
    let mut script = Script::new();
    for turn in 0..400 {
        script = script.reply(Reply::text(format!("Answer {turn}.")));
    }
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::sandbox_with_env(vec![(
        SCRIPTED_KEY_VARIABLE.to_owned(),
        SCRIPTED_KEY.to_owned(),
    )]);
    workspace.use_scripted_model(&model.base_url(), "chat", true, "");
    let started = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "--kernel", "sandbox", "-c", "print(1)"])
    });
    assert!(started.status.success(), "{started:?}");
    let sessions = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(sessions["sessions"][0]["runtime"], "sandbox", "{sessions}");
    let daemon_pid = workspace.runtime().pid;
    assert!(
        !descendants(daemon_pid).is_empty(),
        "the sandbox kernel is not below the daemon"
    );

    let (_, base_url, token) = workspace.api();
    let scratch = tempfile::tempdir().unwrap();
    let target = Target {
        base_url,
        token,
        scratch: scratch.path().to_path_buf(),
        session: Some(id.clone()),
    };
    // What the workspace's `hailer` sends as its variables: its home (where the trust records
    // are) and the extra environment.
    let mut client_env: serde_json::Map<String, Value> = workspace
        .env
        .iter()
        .map(|(name, value)| (name.clone(), json!(value)))
        .collect();
    client_env.insert("HAILER_HOME".to_owned(), json!(workspace.home.path()));
    let began = Instant::now();
    let output = tokio::task::block_in_place(|| {
        let mut command = schemathesis(&venv, &target, &document, &[]);
        for operation in FUZZED {
            command.args(["--include-operation-id", operation]);
        }
        command
            .args(["--max-examples", EXAMPLES])
            .env("PYTHONPATH", repository().join("tests"))
            .env("SCHEMATHESIS_HOOKS", "schemathesis_hooks")
            .env("HAILER_TEST_WORKSPACE", workspace.path())
            .env("HAILER_TEST_KEY_VARIABLE", SCRIPTED_KEY_VARIABLE)
            .env("HAILER_TEST_KEY", SCRIPTED_KEY)
            .env(
                "HAILER_TEST_CLIENT_ENV",
                Value::Object(client_env).to_string(),
            )
            .output()
            .unwrap()
    });
    let took = began.elapsed();
    let report = hailer_tests::output_text(&output);
    eprintln!("schemathesis took {took:?}");

    // Every session the fuzzer started or joined is this workspace's, in the sandbox.
    let sessions = workspace.get_json("/v1/sessions").await;
    let live = sessions["sessions"].as_array().unwrap().clone();
    let audit = workspace
        .get_json(&format!("/v1/sessions/{id}/audit"))
        .await;
    // Stop them all, then see that no kernel is left below the daemon.
    let (client, base, token) = workspace.api();
    for session in &live {
        let stopped = client
            .delete(format!(
                "{base}/v1/sessions/{}",
                session["id"].as_str().unwrap()
            ))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert!(stopped.status().is_success(), "{stopped:?}");
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut left = descendants(daemon_pid);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = descendants(daemon_pid);
    }
    let after = workspace.get_json("/v1/sessions").await;
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    // What the daemon said of sessions and failures, for a failure's message.
    let log = workspace.daemon_log();
    let said: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("session") || line.contains("ERROR") || line.contains("WARN"))
        .take(80)
        .collect();
    let report = format!("{report}\ndaemon log:\n{}", said.join("\n"));

    assert!(output.status.success(), "{report}");
    assert!(report.contains("passed"), "{report}");
    assert!(report.contains("Tested: 4"), "{report}");
    assert!(
        took < Duration::from_secs(300),
        "schemathesis took {took:?}"
    );
    assert!(!live.is_empty());
    for session in &live {
        assert_eq!(session["runtime"], "sandbox", "{session}");
        assert_eq!(
            session["workspace"].as_str().map(std::path::PathBuf::from),
            Some(workspace.canonical()),
            "{session}"
        );
    }
    // The fuzzer's code ran in the kernel, every kernel that started was a sandbox, and its
    // turns reached the scripted model.
    let entries = audit["entries"].as_array().unwrap();
    let runs = entries
        .iter()
        .filter(|entry| entry["kind"] == "exec")
        .count();
    assert!(runs > 1, "no run of the fuzzer's code: {audit}");
    let starts: Vec<&Value> = entries
        .iter()
        .filter(|entry| entry["kind"] == "kernelStart")
        .collect();
    assert!(!starts.is_empty(), "{audit}");
    for start in starts {
        assert!(
            start["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("sandbox"),
            "{start}"
        );
    }
    assert!(!model.requests().is_empty(), "no turn reached the model");
    eprintln!(
        "{runs} runs of code, {} model requests",
        model.requests().len()
    );
    assert_eq!(after["sessions"], json!([]), "{after}");
    assert!(left.is_empty(), "processes left below the daemon: {left:?}");
}
