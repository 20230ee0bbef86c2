//! What the first unsafe-local session start shows while it creates the managed environment:
//! `hailer run` in a terminal (tmux) prints a few step lines and one summary naming the log,
//! which holds the installer's whole output, then the answer; `hailer run --json` carries the
//! same steps as `kernelSetup` events and draws no progress; the chat shows the steps and the
//! summary after its startup panel.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::job_log::package_lines;
use hailer_tests::prereqs::{kernel_venv, wheelhouse};
use hailer_tests::{TestWorkspace, TmuxPane};
use serde_json::{Value, json};

/// The most lines the set-up may print to a terminal without `--verbose`.
const MOST_LINES: usize = 15;
/// An offline environment set-up and one turn, with room for a busy machine.
const RUN: Duration = Duration::from_secs(600);
const ANSWER: &str = "The environment is ready and so is the answer.";

/// A scripted-model workspace whose kernel has no environment yet: the session start makes the
/// managed one from the test Python, offline from the wheelhouse.
async fn fresh_workspace() -> (ScriptedModel, TestWorkspace) {
    // The turn runs code, so it waits for the kernel and its environment.
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6*7)"}),
        ))
        .reply(Reply::text(ANSWER));
    let model = ScriptedModel::start(script).await.unwrap();
    let mut workspace = TestWorkspace::scripted(&model.base_url());
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    workspace.env.push((
        "HAILER_WHEELHOUSE".to_owned(),
        wheelhouse().display().to_string(),
    ));
    let python = kernel_venv().join("bin/python").display().to_string();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replace("[kernel]\n", &format!("[kernel]\npython = \"{python}\"\n")),
    );
    workspace.trust();
    (model, workspace)
}

fn read_log(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_session_start_shows_its_setup_in_a_few_lines_and_names_the_log() {
    let (_model, workspace) = fresh_workspace().await;
    let pane = TmuxPane::spawn(&workspace.command(&["run", "Is it ready?"]));
    let status = tokio::task::block_in_place(|| pane.exit_status(RUN));
    let screen = pane.screen();
    assert_eq!(status, 0, "{screen}");
    let lines: Vec<&str> = screen
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with("Pane is dead"))
        .collect();
    let said = lines.join("\n");
    let summary = lines
        .iter()
        .position(|line| line.contains("Full output: "))
        .unwrap_or_else(|| panic!("no summary naming the log:\n{said}"));
    // The set-up: its steps and the summary, in a few lines, before the answer.
    let setup = &lines[..=summary];
    assert!(setup.len() <= MOST_LINES, "{} lines:\n{said}", setup.len());
    assert!(
        setup
            .iter()
            .any(|line| line.contains("Installing packages")),
        "{said}"
    );
    assert!(
        lines[summary..].iter().any(|line| line.contains(ANSWER)),
        "{said}"
    );
    let path = lines[summary]
        .split_once("Full output: ")
        .map(|(_, path)| path.trim())
        .unwrap_or_default();
    assert!(
        std::path::Path::new(path).starts_with(workspace.home.path().join("state/logs/jobs")),
        "{path}"
    );
    // The installer's own lines, one per package, are in the log and not on screen.
    let log = read_log(path);
    let packages = package_lines(&log);
    assert!(packages.len() >= 20, "{log}");
    for line in &packages {
        assert!(!said.contains(line), "{line:?} on screen:\n{said}");
    }
    assert!(log.lines().count() > setup.len() + 20, "{log}");
    // The environment made is the managed one, under Hailer's data folder.
    let kernels = workspace.home.path().join("data/kernels");
    assert!(
        std::fs::read_dir(&kernels).is_ok_and(|mut dirs| dirs.next().is_some()),
        "{}",
        kernels.display()
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_session_start_with_json_carries_the_setup_as_events() {
    let (_model, workspace) = fresh_workspace().await;
    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Is it ready?"]));
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Every line is JSON: no progress is drawn among the events.
    let values: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{line:?}: {error}")))
        .collect();
    let setup: Vec<&Value> = values
        .iter()
        .filter(|value| value["event"]["type"] == "kernelSetup")
        .map(|value| &value["event"]["line"])
        .collect();
    assert!(
        setup
            .iter()
            .any(|line| line["step"]["name"] == "Installing packages"),
        "{stdout}"
    );
    let last = setup.last().copied().cloned().unwrap_or_default();
    assert_eq!(last["kind"], "done", "{stdout}");
    let log = read_log(last["log"].as_str().unwrap_or_default());
    assert!(package_lines(&log).len() >= 20, "{log}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("Installing packages"), "{stderr}");
    assert!(!stderr.contains("Full output: "), "{stderr}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_shows_a_first_session_start_setup_as_steps_and_names_the_log() {
    let (_model, workspace) = fresh_workspace().await;
    tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Full output: ", RUN);
        let screen = pane.wait_for("The kernel is ready.", RUN);
        let lines: Vec<&str> = screen
            .lines()
            .map(str::trim_end)
            .filter(|line| !line.is_empty())
            .collect();
        let said = lines.join("\n");
        // What follows the startup panel up to the summary: the set-up, in a few lines.
        let panel_end = lines
            .iter()
            .position(|line| line.contains("Web access:"))
            .unwrap_or_else(|| panic!("no panel:\n{said}"));
        let summary = lines
            .iter()
            .position(|line| line.contains("Full output: "))
            .unwrap_or_else(|| panic!("no summary naming the log:\n{said}"));
        let setup = &lines[panel_end + 1..=summary];
        assert!(setup.len() <= MOST_LINES, "{} lines:\n{said}", setup.len());
        assert!(
            setup
                .iter()
                .any(|line| line.contains("Installing packages") && line.contains("done")),
            "{said}"
        );
        let path = lines[summary]
            .split_once("Full output: ")
            .map(|(_, path)| path.trim())
            .unwrap_or_default();
        let log = read_log(path);
        let packages = package_lines(&log);
        assert!(packages.len() >= 20, "{log}");
        for line in &packages {
            assert!(!said.contains(line), "{line:?} on screen:\n{said}");
        }
        drop(pane);
        let _ = workspace.hailer(&["daemon", "stop"]);
    });
}
