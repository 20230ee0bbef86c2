//! A long conversation for the chat page's test and benchmark, made of real turns against the
//! scripted model: in each, the agent runs code in the kernel (one `marimo_execute` call) and
//! answers with a small Markdown table.

use std::ops::Range;
use std::time::Duration;

use hailer_scripted_model::{Reply, Script};
use serde_json::json;

use crate::TestWorkspace;

/// What the user asks in turn `turn`.
pub fn question(turn: usize) -> String {
    format!("Question {turn}: how many orders came from each region?")
}

/// The first words of the answer to turn `turn`, unique to it.
pub fn answer_start(turn: usize) -> String {
    format!("Answer {turn}:")
}

/// The agent's answer to turn `turn`: a sentence and a three-row table.
pub fn answer(turn: usize) -> String {
    format!(
        "{} orders by region.\n\n| region | orders | share |\n|---|---:|---:|\n\
         | North | {} | 50% |\n| South | {} | 30% |\n| West | {} | 20% |\n\nNorth leads.",
        answer_start(turn),
        turn * 5,
        turn * 3,
        turn * 2
    )
}

/// The model's replies for `turns`: a tool call that prints in the kernel, then the answer.
pub fn script(turns: Range<usize>) -> Script {
    turns.fold(Script::new(), |script, turn| {
        script
            .reply(Reply::tool_call(
                "marimo_execute",
                json!({"code": format!("print({turn} * 7)")}),
            ))
            .reply(Reply::text(answer(turn)).in_deltas(4))
    })
}

/// Keeps every turn in the conversation: the workspace's model never summarises older turns
/// (which would leave them out of the conversation a page is sent).
pub fn keep_every_turn(workspace: &TestWorkspace) {
    let path = workspace.path().join("hailer.toml");
    let toml = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let toml = toml.replacen("[model]\n", "[model]\nsummarize_after_tokens = 0\n", 1);
    assert!(toml.contains("summarize_after_tokens = 0"), "{toml}");
    workspace.write("hailer.toml", &toml);
    workspace.trust();
}

/// Runs `turns` one after another with `hailer run`, as a user at the terminal would; panics
/// when one fails or takes longer than `each`.
pub fn run_turns(workspace: &TestWorkspace, turns: Range<usize>, each: Duration) {
    for turn in turns {
        let started = std::time::Instant::now();
        let output = workspace.hailer(&["run", &question(turn)]);
        let printed = crate::output_text(&output);
        assert!(output.status.success(), "turn {turn} failed: {printed}");
        assert!(
            printed.contains(&answer_start(turn)),
            "turn {turn} answered otherwise: {printed}"
        );
        assert!(
            started.elapsed() < each,
            "turn {turn} took {:?}",
            started.elapsed()
        );
    }
}

/// A script for the page (a function body) answering how many answers show their rendered
/// Markdown, and whether the conversation's view is at its bottom: `[rendered, at bottom]`.
pub const RENDERED_AND_AT_BOTTOM: &str = "const list = document.getElementById('conversation');\
  const view = getComputedStyle(list).overflowY === 'visible' ? document.scrollingElement : list;\
  const rendered = list.querySelectorAll('.msg.assistant .text.html table').length;\
  const last = list.lastElementChild;\
  const bottom = view === list ? list.getBoundingClientRect().bottom : window.innerHeight;\
  const atBottom = view.scrollHeight - view.scrollTop - view.clientHeight < 2\
    && !!last && last.getBoundingClientRect().bottom <= bottom + 1;\
  return [rendered, atBottom];";
