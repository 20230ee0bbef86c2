//! A person opens, in a real browser, the notebook the daemon is working in: the browser gets an
//! editor (not marimo's read-only view), its edit reaches the file, and the daemon's next
//! execute still works on the session the browser took over.

use std::time::Duration;

use fantoccini::Locator;
use fantoccini::key::Key;
use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);
/// marimo's editor loads several megabytes of scripts; on a machine busy with other tests that
/// takes far longer than on a laptop.
const EDITOR: Duration = Duration::from_secs(180);

fn exec_prints(workspace: &TestWorkspace, code: &str) -> String {
    let output = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", code]));
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The signed link for a person to open the workspace's active notebook in marimo.
async fn notebook_link(workspace: &TestWorkspace) -> String {
    let sessions: Value = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let change = workspace
        .post_json(
            &format!("/v1/sessions/{id}/notebooks/open"),
            &json!({"notebook": "analysis"}),
        )
        .await;
    change["link"]
        .as_str()
        .unwrap_or_else(|| panic!("no link in {change}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_on_the_daemons_notebook_can_edit_and_the_daemon_keeps_executing() {
    let workspace = TestWorkspace::unsafe_local();
    assert_eq!(exec_prints(&workspace, "print(6*7)"), "42");
    let link = notebook_link(&workspace).await;
    let notebook = workspace.path().join("notebooks/analysis.py");
    let before = std::fs::read_to_string(&notebook).unwrap();

    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    // An editor the person can type in, holding the notebook's code: marimo did not hand the
    // browser its read-only view, so the daemon is not holding the session's stream.
    let editable = "return [...document.querySelectorAll('.cm-content[contenteditable=true]')]\
        .some(n => n.textContent.includes('DATA_DIR'))";
    let first = browser
        .wait_for("an editable cell of the notebook", editable, WAIT)
        .await;
    if first.is_err() {
        // marimo drops the daemon's closed session stream only when it notices the connection
        // is gone; a page that connected first was given the read-only view. Reloading, as a
        // person would, must then give the editor.
        browser.client.refresh().await.unwrap();
        browser
            .wait_for("an editable cell after a reload", editable, EDITOR)
            .await
            .unwrap();
    }
    browser
        .screenshot("notebook-in-browser-opened")
        .await
        .unwrap();

    // The browser took the session over under a new id; the daemon finds it again by path.
    assert_eq!(exec_prints(&workspace, "print(6*7)"), "42");
    assert_eq!(
        exec_prints(&workspace, "print(DATA_DIR.name)"),
        "data",
        "the notebook's globals are still there"
    );

    // The person adds a line to the cell that defines DATA_DIR; marimo saves it to the file.
    let editors = browser
        .client
        .find_all(Locator::Css(".cm-content[contenteditable=true]"))
        .await
        .unwrap();
    let mut target = None;
    for editor in editors {
        if editor
            .text()
            .await
            .unwrap()
            .contains("DATA_DIR = data_folder")
        {
            target = Some(editor);
        }
    }
    let last = target.expect("the cell that defines DATA_DIR");
    last.click().await.unwrap();
    last.send_keys(&(Key::Control + &*Key::End)).await.unwrap();
    last.send_keys("\nedited_in_browser = 1").await.unwrap();
    last.send_keys(&(Key::Control + "s")).await.unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    let after = loop {
        let text = std::fs::read_to_string(&notebook).unwrap();
        if text.contains("edited_in_browser = 1") {
            break text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the browser's edit never reached {}:\n{text}",
            notebook.display()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    browser
        .screenshot("notebook-in-browser-edited")
        .await
        .unwrap();
    // Added as its own line of that cell; the rest of the notebook is still there.
    assert!(after.contains("    edited_in_browser = 1\n"), "{after}");
    for line in before.lines().filter(|line| line.contains("DATA_DIR = ")) {
        assert!(after.contains(line), "lost {line:?}:\n{after}");
    }

    // And the daemon still works on the session the browser holds.
    assert_eq!(exec_prints(&workspace, "print(7*6)"), "42");
    browser.close().await;
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
