//! A kernel setting changed under a live session: `status` names the kernel that really runs
//! and what hailer.toml asks for, and a restart that waits for the running turn is announced to
//! every client when it is found, before the turn ends. Real hailerd, a real kernel, a scripted
//! model.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::LiveSession;

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_names_the_running_kernel_and_a_waiting_restart_is_said_at_once() {
    let slow = Reply::text("A slow answer, word by word.")
        .in_deltas(15)
        .delta_delay(Duration::from_millis(700));
    let model = ScriptedModel::start(Script::new().reply(slow))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;
    let ran = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(ran.status.success(), "{}", said(&ran));

    live.ask("A slow question").await;
    live.until("turnStarted").await;
    // hailer.toml changes while the turn runs.
    let path = workspace.path().join("hailer.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    assert!(toml.contains("runtime = \"unsafe-local\""), "{toml}");
    std::fs::write(
        &path,
        toml.replacen("runtime = \"unsafe-local\"", "runtime = \"docker\"", 1),
    )
    .unwrap();

    // Nothing has applied the change yet: the kernel that runs is unsafe-local.
    let status = said(&tokio::task::block_in_place(|| {
        workspace.hailer(&["status"])
    }));
    let kernel = status
        .lines()
        .find(|line| line.starts_with("Kernel:"))
        .unwrap_or_default();
    assert!(
        kernel.contains("unsafe-local")
            && kernel.contains("running now; hailer.toml asks for docker"),
        "{status}"
    );

    // A client attaches while the turn runs: the restart waits, and everyone hears it now.
    let attached = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(2)"]));
    assert!(attached.status.success(), "{}", said(&attached));
    let mut before = Vec::new();
    let notice = loop {
        let (_, notice, seen) = live.until("notice").await;
        before.extend(seen);
        let message = notice["message"].as_str().unwrap_or_default().to_owned();
        if message.contains("restarts when the running turn ends") {
            break message;
        }
    };
    assert!(notice.contains("runtime unsafe-local → docker"), "{notice}");
    assert!(
        !before.iter().any(|event| event["type"] == "turnFinished"),
        "said only after the turn: {before:?}"
    );
}
