//! A wide numeric table in an answer on the chat page, in real headless Chromium: no number is
//! split across lines in its cell at a laptop's or a phone's width, and on a phone the table
//! scrolls sideways while the page itself does not. Screenshots at both sizes.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::browser::Browser;
use hailer_tests::free_port;
use serde_json::json;

use super::web_page::{open_link, workspace_for};

const WAIT: Duration = Duration::from_secs(60);

/// An answer with a table of twelve numeric columns, wider than a phone.
fn answer() -> String {
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut text = String::from("Revenue by region and month.\n\n| region |");
    for month in months {
        text.push_str(&format!(" {month} |"));
    }
    text.push_str("\n|---|");
    text.push_str(&"---:|".repeat(months.len()));
    for (region, base) in [
        ("North", 58_665.25),
        ("South", 1_234_567.5),
        ("West", -4_321.75),
    ] {
        text.push_str(&format!("\n| {region} |"));
        for n in 0..months.len() {
            let value = base + f64::from(u32::try_from(n).unwrap_or(0)) * 1_111.5;
            text.push_str(&format!(" {} |", with_separators(value)));
        }
    }
    text.push_str("\n\nNorth grew every month.");
    text
}

/// `1234567.5` as `1,234,567.50`.
fn with_separators(value: f64) -> String {
    let fixed = format!("{:.2}", value.abs());
    let (whole, cents) = fixed.split_once('.').unwrap_or((&fixed, "00"));
    let mut grouped = String::new();
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    let sign = if value < 0.0 { "-" } else { "" };
    format!("{sign}{grouped}.{cents}")
}

/// The numeric cells whose text takes more than one line, as `text: lines`.
const SPLIT_NUMBERS: &str = "const t = document.querySelector('.msg.assistant .text.html table');\
  if (!t) return null;\
  const split = [];\
  for (const td of t.querySelectorAll('td')) {\
    const text = td.textContent.trim();\
    if (!/^-?[0-9][0-9,.]*$/.test(text)) continue;\
    const range = document.createRange(); range.selectNodeContents(td);\
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;\
    if (lines > 1) split.push(text + ': ' + lines);\
  }\
  return split;";

async fn size(browser: &Browser, width: u32, height: u32, mobile: bool) {
    browser
        .cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_in_a_wide_table_stay_whole_and_the_table_scrolls_on_a_phone() {
    let model = ScriptedModel::start(Script::new().reply(Reply::text(answer()).in_deltas(6)))
        .await
        .unwrap();
    let port = free_port();
    let workspace = workspace_for(&model, port);
    let link = open_link(&workspace);
    let browser = Browser::start().await.unwrap();
    size(&browser, 1280, 800, false).await;
    browser.client.goto(&link).await.unwrap();
    browser
        .wait_for(
            "the session",
            "return !document.getElementById('session').hidden",
            WAIT,
        )
        .await
        .unwrap();
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", "Revenue by month?"]));
    assert!(output.status.success(), "{output:?}");
    browser
        .wait_for(
            "the answer's table",
            "const t = document.querySelector('.msg.assistant .text.html table'); return t ? t.querySelectorAll('td').length : 0",
            WAIT,
        )
        .await
        .unwrap();
    let show_table = "document.querySelector('.msg.assistant table').scrollIntoView({block: 'center'}); return true";

    let split = browser.eval(SPLIT_NUMBERS).await.unwrap();
    browser.eval(show_table).await.unwrap();
    browser.screenshot("web-page-table-1280x800").await.unwrap();
    assert_eq!(split, json!([]), "numbers split across lines at 1280 px");

    size(&browser, 390, 844, true).await;
    let split = browser.eval(SPLIT_NUMBERS).await.unwrap();
    let layout = browser
        .eval(
            "const t = document.querySelector('.msg.assistant table');\
             return [t.scrollWidth > t.clientWidth, t.getBoundingClientRect().right <= window.innerWidth + 1,\
                     document.documentElement.scrollWidth <= window.innerWidth + 1];",
        )
        .await
        .unwrap();
    browser.eval(show_table).await.unwrap();
    browser.screenshot("web-page-table-390x844").await.unwrap();
    assert_eq!(split, json!([]), "numbers split across lines at 390 px");
    assert_eq!(
        layout,
        json!([true, true, true]),
        "[the table scrolls sideways, it fits the screen, the page does not scroll sideways]"
    );
    browser.close().await;
    let _ = workspace.hailer(&["daemon", "stop"]);
}
