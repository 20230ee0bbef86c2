//! `hailer exec` shows rich values as text, with a real kernel: a DataFrame as a text table, a
//! chart as its title and where to see it, and what the kernel printed cleaned of control
//! sequences.

use hailer_tests::TestWorkspace;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn exec_prints_a_data_frame_as_a_text_table_and_a_chart_as_its_title() {
    let workspace = TestWorkspace::unsafe_local();
    let frame = workspace.hailer(&[
        "exec",
        "-c",
        "import polars as pl; pl.DataFrame({\"a\": [1, 2]})",
    ]);
    assert!(frame.status.success(), "{frame:?}");
    let shown = stdout(&frame);
    let lines: Vec<&str> = shown.lines().map(str::trim).collect();
    assert!(!shown.contains("text/html"), "{shown}");
    assert_eq!(lines.first(), Some(&"a"), "{shown}");
    assert!(lines.contains(&"1") && lines.contains(&"2"), "{shown}");
    assert!(shown.contains("(2 rows × 1 column)"), "{shown}");

    let chart = workspace.hailer(&[
        "exec",
        "-c",
        "import altair as alt, polars as pl\n\
         alt.Chart(pl.DataFrame({\"a\": [1, 2]})).mark_bar().encode(x=\"a\").properties(title=\"Sales by month\")",
    ]);
    assert!(chart.status.success(), "{chart:?}");
    let shown = stdout(&chart);
    assert!(shown.contains("A chart, \"Sales by month\""), "{shown}");
    assert!(shown.contains("hailer open"), "{shown}");

    let hostile = workspace.hailer(&[
        "exec",
        "-c",
        "print('\\x1b]0;pwned\\x07before \\x1b[2J\\u009b2Jafter\\rover')",
    ]);
    let shown = stdout(&hostile);
    let _ = workspace.hailer(&["daemon", "stop"]);
    assert!(hostile.status.success(), "{hostile:?}");
    assert_eq!(shown.trim(), "before afterover", "{shown:?}");
}

/// `hailer exec` is for scripts: what the code printed is all it prints, even in a session
/// that resumed a stored conversation. The chat still learns of it, from the session's info.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_in_a_session_that_resumed_a_conversation_prints_only_the_code_output() {
    use hailer_scripted_model::{Script, ScriptedModel};

    let model = ScriptedModel::start(Script::new().reply_text("An answer to keep."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let run = tokio::task::block_in_place(|| workspace.hailer(&["run", "A first question"]));
    assert!(run.status.success(), "{run:?}");
    // The next session resumes the stored conversation.
    let stop = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(stop.status.success(), "{stop:?}");

    for _ in 0..2 {
        let exec =
            tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
        assert!(exec.status.success(), "{exec:?}");
        assert_eq!(stdout(&exec), "42\n");
        let stderr = String::from_utf8_lossy(&exec.stderr);
        assert!(!stderr.contains("Resumed"), "{stderr}");
        assert!(!stderr.contains("conversation"), "{stderr}");
    }
    let sessions = workspace.get_json("/v1/sessions").await;
    let note = sessions["sessions"][0]["conversationNote"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(
        note.starts_with("Resumed the conversation (1 turns"),
        "{sessions}"
    );
}
