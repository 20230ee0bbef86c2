//! The agent's work on the chat page, in real headless Chromium with a real kernel: a tool call
//! whose cell makes an Altair chart shows the chart's picture under the answer (live, and again
//! after a reload from the conversation so far), the call's code in full when expanded, and the
//! page's policy as strict as before. Screenshots at a laptop's and a phone's size.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::browser::Browser;
use hailer_tests::free_port;
use serde_json::json;

use super::web_page::{open_link, workspace_for};

const WAIT: Duration = Duration::from_secs(90);

/// Code mode making a named cell whose output is a bar chart (underscore names stay private to
/// the cell, so nothing clashes with the starter notebook's imports).
pub(super) const CHART_CODE: &str = "import marimo._code_mode as cm\n\
async with cm.get_context() as ctx:\n    \
cid = ctx.create_cell('import altair as _alt\\nimport polars as _pl\\n_sales = _pl.DataFrame({\"city\": [\"Oslo\", \"Lima\", \"Pune\"], \"n\": [3, 1, 2]})\\n_alt.Chart(_sales).mark_bar().encode(x=\"city\", y=\"n\").properties(title=\"Rows per city\")', name='city_chart')\n    \
ctx.run_cell(cid)\n\
print('made the chart cell')\n";

const ANSWER: &str =
    "Oslo has the most rows.\n\n| city | n |\n|---|---|\n| Oslo | 3 |\n| Pune | 2 |";

/// The exact policy the page had before charts: images only from the daemon or `data:` URLs.
fn expected_policy(port: u16) -> String {
    format!(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self' ws://127.0.0.1:{port}; frame-ancestors 'none'; base-uri 'none'; \
         form-action 'none'"
    )
}

/// The chart shown under the answer: [image source prefix, alt, caption] or empty.
const CHART_UNDER_ANSWER: &str = "const a = [...document.querySelectorAll('.msg.assistant')]\
    .find(n => n.textContent.includes('Oslo has the most rows'));\
  const img = a && a.querySelector('figure.chart img');\
  if (!img || !img.complete || img.naturalWidth === 0) return '';\
  return [img.src.slice(0, 26), img.alt, a.querySelector('figure.chart figcaption').textContent];";

async fn assert_chart_under_answer(browser: &Browser, what: &str) {
    let found = browser
        .wait_for(what, CHART_UNDER_ANSWER, WAIT)
        .await
        .unwrap();
    assert_eq!(found[0], "data:image/svg+xml;base64,", "{found}");
    assert_eq!(found[1], "Rows per city", "{found}");
    let caption = found[2].as_str().unwrap();
    assert!(caption.contains("Rows per city"), "{caption}");
    assert!(
        caption.contains("cell city_chart in analysis.py"),
        "{caption}"
    );
}

async fn show_chart(browser: &Browser) {
    browser
        .eval(
            "document.querySelector('figure.chart').scrollIntoView({block: 'center'}); return true",
        )
        .await
        .unwrap();
}

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
async fn a_chart_the_agent_makes_shows_under_the_answer_with_its_code_in_full() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": CHART_CODE}),
        ))
        .reply(Reply::text(ANSWER).in_deltas(4));
    let model = ScriptedModel::start(script).await.unwrap();
    let port = free_port();
    let workspace = workspace_for(&model, port);
    let link = open_link(&workspace);

    let page = hailer_tests::daemon::http_client()
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .unwrap();
    let policy = page
        .headers()
        .get("content-security-policy")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(policy, expected_policy(port));

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

    // The turn runs from the terminal; the page follows it live.
    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["run", "Which city has most rows?"]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{output:?}");
    assert!(stderr.contains("Chart:"), "{stderr}");
    assert!(
        stderr.contains("Rows per city (cell city_chart in analysis.py)"),
        "{stderr}"
    );
    assert_chart_under_answer(&browser, "the live chart under the answer").await;

    // The answer's table is a table.
    let cells = browser
        .wait_for(
            "the answer's table",
            "const t = document.querySelector('.msg.assistant .text.html table'); return t ? t.querySelectorAll('td').length : 0",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(cells, 4);

    // The audit panel lists the run with its code in full (in the record written before it ran)
    // and the cell it created.
    let audit = browser
        .wait_for(
            "the audit panel's records",
            "const items = [...document.querySelectorAll('#audit-list li')];\
             const exec = items.find(li => li.dataset.kind === 'exec' && li.querySelector('pre code'));\
             const cell = items.find(li => li.dataset.kind === 'cell');\
             if (!exec || !cell) return '';\
             return [exec.querySelector('pre code').textContent, cell.textContent];",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(audit[0], CHART_CODE);
    let cell = audit[1].as_str().unwrap();
    assert!(cell.contains("created cell"), "{cell}");
    assert!(cell.contains("import altair as _alt"), "{cell}");

    // The tool call's code, in full and highlighted, once expanded.
    let collapsed = browser
        .eval("return document.querySelector('details.tool-call').open")
        .await
        .unwrap();
    assert_eq!(collapsed, false);
    browser
        .eval("document.querySelector('details.tool-call summary').click(); return true")
        .await
        .unwrap();
    let shown = browser
        .eval(
            "const d = document.querySelector('details.tool-call'); const c = d.querySelector('code.python');\
             return [d.open, c.textContent, c.querySelectorAll('.tok-keyword').length, d.querySelector('.tool-result').textContent];",
        )
        .await
        .unwrap();
    assert_eq!(shown[0], true);
    assert_eq!(shown[1], CHART_CODE);
    assert!(shown[2].as_u64().unwrap() >= 3, "{shown}");
    let result = shown[3].as_str().unwrap();
    assert!(result.contains("made the chart cell"), "{result}");
    assert!(
        result.contains("The user sees the chart 'Rows per city'"),
        "{result}"
    );
    show_chart(&browser).await;
    browser.screenshot("web-page-chart-1280x800").await.unwrap();
    size(&browser, 390, 844, true).await;
    let fits = browser
        .eval(
            "const img = document.querySelector('figure.chart img');\
             return [img.getBoundingClientRect().right <= window.innerWidth + 1, document.documentElement.scrollWidth <= window.innerWidth + 1];",
        )
        .await
        .unwrap();
    assert_eq!(
        fits,
        json!([true, true]),
        "the chart or page overflows a phone's width"
    );
    show_chart(&browser).await;
    browser.screenshot("web-page-chart-390x844").await.unwrap();

    // A page opened later gets the chart with the conversation so far.
    size(&browser, 1280, 800, false).await;
    browser.client.refresh().await.unwrap();
    assert_chart_under_answer(&browser, "the chart after a reload").await;
    browser.close().await;
}

/// Two charts whose text holds control characters, which made vl-convert abort the process
/// drawing them: one with them in its title and data (drawn once they are removed), one whose
/// labels its own expression makes with one (not drawn).
const ODD_CHARTS_CODE: &str = r#"import marimo._code_mode as cm
_written = r'''import altair as _alt
import polars as _pl
_d = _pl.DataFrame({"city": ["Os\x01lo", "Lima"], "n": [3, 1]})
_alt.Chart(_d).mark_bar().encode(x="city:N", y="n:Q").properties(title="Ci\x01ties")'''
_made = r'''import altair as _alt
import polars as _pl
_e = _pl.DataFrame({"city": ["Oslo", "Lima"], "n": [3, 1]})
_alt.Chart(_e).mark_bar().encode(x="label:N", y="n:Q").transform_calculate(label="'a\\x01' + datum.city").properties(title="Made")'''
async with cm.get_context() as ctx:
    ctx.run_cell(ctx.create_cell(_written, name='written_chart'))
    ctx.run_cell(ctx.create_cell(_made, name='made_chart'))
print('made the chart cells')
"#;

/// Prints the kernel's process id and a value kept on the `sys` module (gone only with the
/// process: cell runs do not clear it).
const KERNEL_AND_VALUE: &str =
    "import os, sys\nprint(os.getpid(), getattr(sys, 'kept_for_later', None))";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn charts_with_control_characters_leave_the_kernel_and_its_values() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": ODD_CHARTS_CODE}),
        ))
        .reply(Reply::text("Drawn."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = hailer_tests::TestWorkspace::scripted(&model.base_url());
    tokio::task::block_in_place(|| {
        let exec = |code: &str| {
            let output = workspace.hailer(&["exec", "-c", code]);
            assert!(output.status.success(), "{output:?}");
            String::from_utf8_lossy(&output.stdout).trim().to_owned()
        };
        let before =
            exec("import os, sys\nsys.kept_for_later = 41\nprint(os.getpid(), sys.kept_for_later)");
        assert!(before.ends_with(" 41"), "{before}");
        let turn = workspace.hailer(&["run", "--json", "Chart the cities."]);
        assert!(turn.status.success(), "{turn:?}");
        let said = String::from_utf8_lossy(&turn.stdout).into_owned();
        let summary: serde_json::Value = said
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str(line).ok())
            .unwrap_or_else(|| panic!("{said}"));
        let charts: Vec<(String, bool)> = summary["charts"]
            .as_array()
            .unwrap_or_else(|| panic!("{said}"))
            .iter()
            .map(|chart| {
                (
                    chart["title"].as_str().unwrap_or_default().to_owned(),
                    chart["drawn"].as_bool().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            charts,
            [("Cities".to_owned(), true), ("Made".to_owned(), false)],
            "{said}"
        );
        // The same kernel process, with the value set before the charts.
        assert_eq!(exec(KERNEL_AND_VALUE), before);
        let _ = workspace.hailer(&["daemon", "stop"]);
    });
}
