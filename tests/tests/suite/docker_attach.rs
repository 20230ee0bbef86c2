//! A docker kernel starts when a client attaches, not when the first question comes: a person who
//! opens the chat and types a question finds the kernel container already booting or ready.

use std::time::{Duration, Instant};

use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::{TestWorkspace, TmuxPane};

/// The session's kernel state as `hailer status --json` prints it, if a session is there.
fn kernel_state(workspace: &TestWorkspace) -> Option<String> {
    let status = workspace.hailer(&["status", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&status.stdout).ok()?;
    json["sessions"][0]["kernel"].as_str().map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attached_chat_has_its_docker_kernel_ready_before_any_question() {
    hailer_tests::docker_image::kernel_image().await;
    let model = ScriptedModel::start(Script::new()).await.unwrap();
    let workspace = TestWorkspace::docker().answered_by(&model.base_url());
    tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Web access:", Duration::from_secs(30));
        // Nothing is typed: the kernel container starts because the chat attached.
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut state = None;
        while Instant::now() < deadline {
            state = kernel_state(&workspace);
            if state.as_deref() == Some("idle") {
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        assert_eq!(
            state.as_deref(),
            Some("idle"),
            "the kernel was not ready while the chat waited for a question:\n{}",
            pane.screen()
        );
        let containers = workspace.docker_containers();
        assert!(
            containers
                .iter()
                .any(|name| name.contains("hailer-kernel-")),
            "no kernel container runs: {containers:?}"
        );
        assert!(
            model.requests().is_empty(),
            "the model was asked something though nobody typed"
        );
        pane.keys(&["C-d"]);
        assert_eq!(pane.exit_status(Duration::from_secs(20)), 0);
    });
    let _ = workspace.hailer(&["kernel", "stop"]);
}
