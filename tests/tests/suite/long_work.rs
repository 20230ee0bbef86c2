//! Long work in a live session, through the commands a user types: `hailer cancel`, a `hailer
//! run` whose kernel cannot start, the run time limit as a setting, a client kept waiting by a
//! busy kernel, and the daemon stopped mid-turn. Real unsafe-local kernel, scripted model.

use std::path::Path;
use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::running::Running;
use serde_json::json;

/// Code that touches `marker` once it runs in the kernel, then sleeps for a minute.
fn slow_code(marker: &Path) -> String {
    format!(
        "import pathlib, time\npathlib.Path({:?}).touch()\nfor _ in range(600):\n    time.sleep(0.1)\nprint('never')",
        marker.display().to_string()
    )
}

/// Waits until `marker` exists (the slow code reached the kernel).
fn wait_for(marker: &Path, running: &Running) {
    for _ in 0..1800 {
        if marker.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "the run never reached the kernel\nstdout:\n{}\nstderr:\n{}",
        running.stdout(),
        running.stderr()
    );
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hailer_cancel_cancels_the_turn_a_hailer_run_started() {
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("run-started");
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": slow_code(&marker)}),
        ))
        .reply_text("unused");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    tokio::task::block_in_place(|| {
        let mut run = Running::spawn(workspace.command(&["run", "Run something slow"]));
        wait_for(&marker, &run);

        // A second question meanwhile is refused, and told which command cancels.
        let second = workspace.hailer(&["run", "Another question"]);
        assert!(!second.status.success());
        let said = text(&second.stderr);
        assert!(said.contains("hailer cancel"), "{said}");

        // Code sent meanwhile waits for the turn's run, and says so at once.
        let mut exec = Running::spawn(workspace.command(&["exec", "-c", "print(6 * 7)"]));
        let asked = std::time::Instant::now();
        while !exec.stderr().contains("the kernel is busy") {
            assert!(
                asked.elapsed() < Duration::from_secs(3),
                "no notice: {}",
                exec.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        println!("busy notice after {} ms", asked.elapsed().as_millis());

        let cancel = workspace.hailer(&["cancel"]);
        let said = text(&cancel.stdout);
        assert!(cancel.status.success(), "{cancel:?}");
        assert!(said.contains("Cancelled the running turn"), "{said}");

        let status = run.wait(Duration::from_secs(30));
        assert!(!status.success(), "{}", run.stderr());
        assert!(
            run.stderr().contains("the turn was cancelled"),
            "{}",
            run.stderr()
        );

        assert!(
            exec.wait(Duration::from_secs(60)).success(),
            "{}",
            exec.stderr()
        );
        assert!(exec.stdout().contains("42"), "{}", exec.stdout());

        let again = workspace.hailer(&["cancel"]);
        assert_eq!(again.status.code(), Some(1), "{again:?}");
        assert!(
            text(&again.stdout).contains("no turn is running"),
            "{again:?}"
        );
        let _ = workspace.hailer(&["daemon", "stop"]);
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hailer_run_exits_non_zero_when_the_kernel_cannot_start() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6*7)"}),
        ))
        .reply_text("The kernel is down, so I could not compute it.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    // A Python that fails every probe: the kernel cannot start.
    workspace.write("broken-python", "#!/bin/sh\nexit 3\n");
    let program = workspace.path().join("broken-python");
    std::fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replacen("[kernel]\n", "[kernel]\npython = \"broken-python\"\n", 1),
    );
    workspace.trust();
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", "What is 6*7?"]));
    let said = text(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("the kernel could not run the code"), "{said}");
    // The model's words still reach the user.
    assert!(
        text(&output.stdout).contains("kernel is down"),
        "{output:?}"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_past_its_time_limit_names_the_setting_the_flag_and_lazy_reads() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "import time\ntime.sleep(60)"}),
        ))
        .reply_text("It took too long.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replacen("[kernel]\n", "[kernel]\nexec_timeout_secs = 600\n", 1),
    );
    let started = std::time::Instant::now();
    // The flag wins over the file for the session this command starts.
    let output = tokio::task::block_in_place(|| {
        workspace.hailer(&["--exec-timeout", "3", "run", "--json", "Read it all."])
    });
    assert!(output.status.success(), "{output:?}");
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "the flag's limit did not apply"
    );
    let events = super::agent_turns::events(&output);
    let finished = events
        .iter()
        .find(|event| event["type"] == "toolCallFinished")
        .unwrap();
    let said = finished["output"].as_str().unwrap();
    for needle in [
        "did not finish the run within 3.0 s",
        "exec_timeout_secs",
        "--exec-timeout",
        "scan_csv",
    ] {
        assert!(said.contains(needle), "{needle}: {said}");
    }
    // The notebook is named by its file name, not a path the kernel sees.
    assert!(!said.contains("/notebooks/"), "{said}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_daemon_mid_turn_cancels_the_turn_and_stores_nothing_of_the_dead_kernel() {
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("run-started");
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": slow_code(&marker)}),
        ))
        .reply_text("An answer written from the stopped kernel's error.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    tokio::task::block_in_place(|| {
        let mut run = Running::spawn(workspace.command(&["run", "Run something slow"]));
        wait_for(&marker, &run);
        let stop = workspace.hailer(&["daemon", "stop"]);
        assert!(stop.status.success(), "{stop:?}");
        let status = run.wait(Duration::from_secs(60));
        let said = run.stderr();
        assert!(!status.success(), "{said}");
        assert!(said.contains("the turn was cancelled"), "{said}");
        assert_eq!(said.matches("hailer:").count(), 1, "one message: {said}");
        assert!(!run.stdout().contains("stopped kernel"), "{}", run.stdout());
    });
    // The kernel's end never reached the model, so no answer came from it.
    assert_eq!(model.requests().len(), 1, "the model was asked again");
    let _ = workspace.hailer(&["daemon", "stop"]);
}
