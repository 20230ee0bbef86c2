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
