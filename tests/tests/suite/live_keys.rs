//! A key stays with a live session: a client from a shell without the key (`hailer exec`,
//! `status`) takes nothing away from an open chat or the page, and `status` says the session can
//! answer. Real hailerd, a real kernel, the chat in tmux, a scripted model.

use std::time::Duration;

use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::{TestWorkspace, TmuxPane};
use serde_json::json;

const SHORT: Duration = Duration::from_secs(60);
const KEY_VARIABLE: &str = "SCRIPTED_KEY";
const KEY: &str = "scripted-key-7f3a9c1e5b";

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_keyless_exec_takes_no_key_from_the_open_chat_or_the_page() {
    let model = ScriptedModel::start(
        Script::new()
            .reply_text("The chat's answer.")
            .reply_text("The page's answer."),
    )
    .await
    .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let pane = tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Web access:", SHORT);
        pane
    });
    // The kernel is up once the exec has run.
    let keyless = |args: &[&str]| {
        tokio::task::block_in_place(|| {
            workspace
                .command(args)
                .env_remove(KEY_VARIABLE)
                .output()
                .unwrap()
        })
    };
    let exec = keyless(&["exec", "-c", "print(6 * 7)"]);
    assert!(exec.status.success(), "{}", said(&exec));
    assert!(said(&exec).contains("42"), "{}", said(&exec));

    // `status` from the keyless shell judges the key as the session's next turn will.
    let status = said(&keyless(&["status"]));
    assert!(status.contains("(ready)"), "{status}");
    assert!(
        status.contains(&format!(
            "Credentials: {KEY_VARIABLE} as the live session keeps it"
        )),
        "{status}"
    );

    tokio::task::block_in_place(|| {
        pane.type_line("A question after the keyless exec");
        let screen = pane.wait_for("The chat's answer.", SHORT);
        assert!(!screen.contains("is not set"), "{screen}");
    });

    // The page sends no variables: the session's key answers it.
    let session = workspace.get_json("/v1/sessions").await["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let page_turn = workspace
        .post_json(
            &format!("/v1/sessions/{session}/turns"),
            &json!({"text": "A question from the page", "client": "browser", "wait": true}),
        )
        .await;
    assert_eq!(page_turn["result"]["outcome"], "finished", "{page_turn}");
    assert_eq!(
        page_turn["result"]["answer"], "The page's answer.",
        "{page_turn}"
    );

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.bearer_token(), Some(KEY));
    }
    drop(pane);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_uses_the_key_of_the_client_that_sent_it() {
    let model = ScriptedModel::start(
        Script::new()
            .reply_text("With the first key.")
            .reply_text("With the chat's own key."),
    )
    .await
    .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let pane = tokio::task::block_in_place(|| {
        let pane = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
        pane.wait_for("Web access:", SHORT);
        pane
    });
    // Another shell, with another key, attaches and asks.
    let other = tokio::task::block_in_place(|| {
        workspace
            .command(&["run", "A question with another key"])
            .env(KEY_VARIABLE, "another-key-20c4e1")
            .output()
            .unwrap()
    });
    assert!(other.status.success(), "{}", said(&other));
    // The chat's turn goes with the chat's own key. As a user would, it asks once the chat has
    // shown the other turn's answer; if that turn's end has not reached the chat yet, the chat
    // keeps the draft and says so, and Enter sends it again.
    tokio::task::block_in_place(|| {
        pane.wait_for("With the first key.", SHORT);
        pane.type_line("A question from the chat");
        let screen = pane.wait_until("the answer, or the draft kept", SHORT, |screen| {
            screen.contains("With the chat's own key.") || screen.contains("Still working")
        });
        if !screen.contains("With the chat's own key.") {
            pane.keys(&["Enter"]);
            pane.wait_for("With the chat's own key.", SHORT);
        }
    });
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].bearer_token(), Some("another-key-20c4e1"));
    assert_eq!(requests[1].bearer_token(), Some(KEY));
    drop(pane);
}
