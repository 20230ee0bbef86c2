//! A long conversation on the chat page, in real headless Chromium with a real kernel: opened
//! later, it shows every answer rendered (each one's table) with the view at its bottom, and a
//! new answer after that (with a chart, whose picture grows the page once it loads) is rendered
//! and followed down. Screenshots of both.

use std::time::Duration;

use fantoccini::Locator;
use hailer_scripted_model::{Reply, ScriptedModel};
use hailer_tests::browser::Browser;
use hailer_tests::free_port;
use hailer_tests::long_chat::{self, RENDERED_AND_AT_BOTTOM};
use serde_json::json;

use super::web_page::{open_link, workspace_for};
use super::web_page_charts::CHART_CODE;

const WAIT: Duration = Duration::from_secs(90);
const TURNS: usize = 60;

/// The first words of every answer on the page, in order.
const ANSWER_STARTS: &str = "return [...document.querySelectorAll('#conversation .msg.assistant .text')]\
  .map(n => n.textContent.split(':')[0] + ':');";

/// Whether the newest answer shows its table and its chart's loaded picture.
const NEW_ANSWER_DONE: &str = "const answers = document.querySelectorAll('#conversation .msg.assistant');\
  const a = answers[answers.length - 1];\
  const img = a && a.querySelector('figure.chart img');\
  return !!a && !!a.querySelector('.text.html table') && !!img && img.complete && img.naturalWidth > 0;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_conversation_opens_rendered_at_its_bottom_and_follows_a_new_answer() {
    let script = long_chat::script(0..TURNS)
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": CHART_CODE}),
        ))
        .reply(Reply::text(long_chat::answer(TURNS)).in_deltas(4));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model, free_port());
    tokio::task::block_in_place(|| {
        long_chat::run_turns(&workspace, 0..TURNS, Duration::from_secs(60));
    });

    let link = open_link(&workspace);
    let browser = Browser::start().await.unwrap();
    browser
        .cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .unwrap();
    browser.client.goto(&link).await.unwrap();
    let every_answer = format!(
        "const [rendered] = (() => {{ {RENDERED_AND_AT_BOTTOM} }})(); return rendered >= {TURNS};"
    );
    browser
        .wait_for("every answer rendered", &every_answer, WAIT)
        .await
        .unwrap();
    // A few frames for anything still queued.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let starts: Vec<String> = (0..TURNS).map(long_chat::answer_start).collect();
    assert_eq!(
        browser.eval(ANSWER_STARTS).await.unwrap(),
        json!(starts),
        "the answers shown"
    );
    let opened = browser.eval(RENDERED_AND_AT_BOTTOM).await.unwrap();
    browser
        .screenshot("web-page-long-chat-opened")
        .await
        .unwrap();
    assert_eq!(
        opened,
        json!([TURNS, true]),
        "[answers with their table, the view at the bottom] once opened"
    );

    // A new answer, asked from the page: its chart and table show, and the view follows.
    let input = browser.client.find(Locator::Id("message")).await.unwrap();
    input
        .send_keys(&format!("{}\u{E007}", long_chat::question(TURNS)))
        .await
        .unwrap();
    browser
        .wait_for("the new answer's table and chart", NEW_ANSWER_DONE, WAIT)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let followed = browser.eval(RENDERED_AND_AT_BOTTOM).await.unwrap();
    browser
        .screenshot("web-page-long-chat-new-answer")
        .await
        .unwrap();
    assert_eq!(
        followed,
        json!([TURNS + 1, true]),
        "[answers with their table, the view at the bottom] after a new answer"
    );
    let newest = browser
        .eval(
            "const a = [...document.querySelectorAll('#conversation .msg.assistant')].pop(); return a.textContent;",
        )
        .await
        .unwrap();
    let newest = newest.as_str().unwrap();
    assert!(
        newest.contains(&long_chat::answer_start(TURNS)) && newest.contains("Rows per city"),
        "{newest}"
    );
    browser.close().await;
    let _ = workspace.hailer(&["daemon", "stop"]);
}
