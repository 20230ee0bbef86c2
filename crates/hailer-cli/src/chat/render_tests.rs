//! What the terminal shows of answers and tool calls, as snapshots, and that nothing the model,
//! the kernel or a file says can reach the terminal as a control sequence.

use std::sync::{Arc, Mutex};

use hailer_protocol::{Chart, KernelStatus, NoticeLevel, PastToolCall, PastTurn, SessionEvent};

use super::screen::Screen;
use super::turn_view::TurnView;
use hailer_render::Style;
use hailer_render::assert_only_our_styling;
use hailer_render::render_markdown as render;

/// Our SGR escapes written visibly, so colour snapshots can be read.
fn visible(lines: &[String]) -> String {
    lines.join("\n").replace('\x1b', "␛")
}

fn wide_table() -> String {
    let mut text = String::from(
        "Sales by region:\n\n\
         | Region | Manager | Notes | Units | Revenue (EUR) |\n\
         |--------|---------|-------|------:|--------------:|\n",
    );
    for (region, manager, notes, units, revenue) in [
        (
            "North",
            "Åsa Lindqvist",
            "Strong quarter after the new distributor in Tromsø signed in March",
            "1204",
            "1,284,330.50",
        ),
        (
            "South",
            "José Martínez",
            "Flat; the price change in **May** cost volume",
            "980",
            "1,010,002.00",
        ),
        ("East", "李小龙", "New region", "77", "81,940.10"),
        ("West", "Bob", "", "1500", "1,650,000.00"),
    ] {
        text.push_str(&format!(
            "| {region} | {manager} | {notes} | {units} | {revenue} |\n"
        ));
    }
    text.push_str("\nTotals follow.\n");
    text
}

#[test]
fn a_wide_table_at_80_columns() {
    let lines = render(&wide_table(), Style::plain(), 80);
    assert!(
        lines
            .iter()
            .all(|line| hailer_render::text_width(line) <= 80),
        "{lines:#?}"
    );
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn a_wide_table_at_120_columns() {
    let lines = render(&wide_table(), Style::plain(), 120);
    assert!(
        lines
            .iter()
            .all(|line| hailer_render::text_width(line) <= 120),
        "{lines:#?}"
    );
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn long_words_and_paragraphs_wrap() {
    let text = "The file is at /data/exports/2026/november/region_north_sales_by_week_and_product_category_final_v3.parquet and \
                it holds **every** week since January, with `pl.read_parquet` reading it in a moment.\n\
                - A list item long enough to wrap onto a second line, which is indented under its text.\n\
                > A quoted line that also runs past the width of the terminal and so wraps with its bar.\n";
    let lines = render(text, Style::plain(), 40);
    assert!(
        lines
            .iter()
            .all(|line| hailer_render::text_width(line) <= 40),
        "{lines:#?}"
    );
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn a_code_block_is_highlighted() {
    let text = "```python\nimport polars as pl\n# the frame\ndf = pl.DataFrame({\"a\": [1, 2]})\nprint(df.shape, len(df))\n```\n";
    let colored = render(text, Style::colored(), 80);
    insta::assert_snapshot!(visible(&colored));
    assert_eq!(
        render(text, Style::plain(), 80)[1..4],
        [
            "  import polars as pl",
            "  # the frame",
            "  df = pl.DataFrame({\"a\": [1, 2]})"
        ]
    );
}

#[test]
fn blocks_are_highlighted_by_the_language_their_fence_names() {
    let text = "```sql\nSELECT region, SUM(revenue) AS total FROM sales -- all weeks\n```\n\
                ```json\n{\"rows\": 200, \"ok\": true}\n```\n\
                ```unknown-language\nleft as it is\n```\n";
    let colored = render(text, Style::colored(), 80);
    insta::assert_snapshot!(visible(&colored));
    // Colour off, each line is the code as written.
    assert_eq!(
        render(text, Style::plain(), 80)[1],
        "  SELECT region, SUM(revenue) AS total FROM sales -- all weeks"
    );
}

#[test]
fn a_short_tool_call() {
    let mut lines = hailer_render::tool_started(
        "marimo_execute",
        "{\"code\":\"import polars as pl...",
        Some("import polars as pl\npl.DataFrame({\"a\": [1, 2]})"),
        Style::plain(),
        80,
    );
    lines.extend(hailer_render::tool_finished(
        "marimo_execute",
        Some(true),
        "a",
        "a\n-\n1\n2\n(2 rows × 1 column)",
        Style::plain(),
        80,
    ));
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn a_long_tool_call_is_folded() {
    let code: String = (1..=30)
        .map(|n| format!("step_{n} = compute({n})\n"))
        .collect();
    let mut lines =
        hailer_render::tool_started("marimo_execute", "", Some(&code), Style::plain(), 80);
    lines.extend(hailer_render::tool_finished(
        "marimo_execute",
        Some(false),
        "Traceback",
        "Traceback (most recent call last):\n  File \"cell\", line 30\nNameError: name 'compute' is not defined\nline four\nline five\nline six",
        Style::plain(),
        80,
    ));
    insta::assert_snapshot!(lines.join("\n"));
    let colored =
        hailer_render::tool_started("marimo_execute", "", Some(&code), Style::colored(), 80);
    assert!(colored[1].contains("\x1b[33m1\x1b[0m"), "{colored:?}");
}

/// Collects what the chat prints, as the line editor's printer would get it.
struct Capture(Arc<Mutex<String>>);

impl rustyline::ExternalPrinter for Capture {
    fn print(&mut self, msg: String) -> rustyline::Result<()> {
        if let Ok(mut shown) = self.0.lock() {
            shown.push_str(&msg);
        }
        Ok(())
    }
}

/// What the chat shows for `events`, in colour at 80 columns.
fn shown(events: &[SessionEvent]) -> String {
    let printed = Arc::new(Mutex::new(String::new()));
    let screen =
        Screen::interactive(Style::colored(), Box::new(Capture(printed.clone()))).with_width(80);
    let mut view = TurnView::new(&screen);
    for event in events {
        view.show(&screen, event);
    }
    printed
        .lock()
        .map(|shown| shown.clone())
        .unwrap_or_default()
}

const HOSTILE: &[(&str, &str)] = &[
    ("OSC title", "\x1b]0;pwned\x07"),
    ("OSC with ST", "\x1b]2;pwned\x1b\\"),
    ("CSI clear screen", "\x1b[2J\x1b[H"),
    ("ESC alone", "\x1b"),
    ("C1 CSI", "\u{9b}2J"),
    ("C1 OSC", "\u{9d}0;pwned\u{9c}"),
    ("carriage return overwrite", "harmless\r$ sudo rm -rf ~"),
    ("backspaces", "safe\x08\x08\x08\x08evil"),
    ("DCS", "\x1bP1$rpwned\x1b\\"),
    ("APC", "\x1b_pwned\x1b\\"),
];

fn turn(events: Vec<SessionEvent>) -> Vec<SessionEvent> {
    let mut all = vec![SessionEvent::TurnStarted {
        turn_id: "t".to_owned(),
        text: "question".to_owned(),
        client: "terminal".to_owned(),
    }];
    all.extend(events);
    all
}

#[test]
fn hostile_strings_reach_the_terminal_without_control_sequences() {
    for (what, hostile) in HOSTILE {
        let text = format!("before {hostile} after");
        let as_answer = turn(vec![SessionEvent::TextDelta {
            turn_id: "t".to_owned(),
            delta: format!("| col |\n|---|\n| {text} |\n\n**{text}**\n```\n{text}\n```\n"),
        }]);
        let as_kernel_output = turn(vec![
            SessionEvent::ToolCallStarted {
                turn_id: "t".to_owned(),
                call_id: "c".to_owned(),
                name: "marimo_execute".to_owned(),
                preview: text.clone(),
                code: Some(format!("print('{text}')")),
                client: Some(text.clone()),
            },
            SessionEvent::ToolCallFinished {
                turn_id: "t".to_owned(),
                call_id: "c".to_owned(),
                name: "marimo_execute".to_owned(),
                ok: false,
                preview: text.clone(),
                output: text.clone(),
            },
            SessionEvent::Kernel {
                status: KernelStatus::Failed,
                message: Some(text.clone()),
                hint: Some(text.clone()),
                exit: None,
            },
            SessionEvent::Notice {
                level: NoticeLevel::Warning,
                message: text.clone(),
            },
        ]);
        let as_notebook_name = vec![
            SessionEvent::NotebookSwitched {
                notebook: format!("{text}.py"),
            },
            SessionEvent::Chart {
                turn_id: "t".to_owned(),
                call_id: "c".to_owned(),
                chart: Chart {
                    id: "1".to_owned(),
                    title: Some(text.clone()),
                    library: "altair".to_owned(),
                    cell: text.clone(),
                    cell_id: text.clone(),
                    notebook: format!("{text}.py"),
                    image: None,
                },
            },
            SessionEvent::History {
                turns: vec![PastTurn {
                    text: text.clone(),
                    tools: vec![PastToolCall {
                        call_id: text.clone(),
                        name: "marimo_execute".to_owned(),
                        preview: text.clone(),
                        code: Some(text.clone()),
                        ok: Some(true),
                        result: text.clone(),
                        output: text.clone(),
                    }],
                    answer: text.clone(),
                    charts: Vec::new(),
                }],
            },
        ];
        for (source, events) in [
            ("model answer", as_answer),
            ("kernel output", as_kernel_output),
            ("notebook name", as_notebook_name),
        ] {
            let screen = shown(&events);
            assert!(
                screen.contains("before") && screen.contains("after"),
                "{what} as {source}: {screen:?}"
            );
            assert!(!screen.contains("pwned"), "{what} as {source}: {screen:?}");
            assert_only_our_styling(&screen);
        }
    }
}

#[test]
fn a_failed_kernel_says_why_and_what_to_do() {
    let screen = shown(&[SessionEvent::Kernel {
        status: KernelStatus::Failed,
        message: Some("the kernel was ended from outside by SIGKILL".to_owned()),
        hint: Some("Start a new session to get a new kernel.".to_owned()),
        exit: None,
    }]);
    let screen = visible(&[screen]);
    let why = screen
        .find("The kernel failed: the kernel was ended from outside by SIGKILL")
        .unwrap_or_else(|| panic!("{screen}"));
    let what = screen
        .find("Start a new session to get a new kernel.")
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(why < what, "{screen}");
}

#[test]
fn the_assertion_catches_an_escape_that_is_not_ours() {
    let caught = std::panic::catch_unwind(|| assert_only_our_styling("a \x1b[2J b"));
    assert!(caught.is_err());
    let caught = std::panic::catch_unwind(|| assert_only_our_styling("a \u{9b} b"));
    assert!(caught.is_err());
    assert_only_our_styling("a \x1b[1;36mb\x1b[0m\n\tc");
}
