//! Benchmark of the browser chat page on a long conversation, in headless Chromium (1280×800):
//! a 200-turn conversation (each turn a `marimo_execute` call and an answer with a table, real
//! turns against the scripted model on an unsafe-local kernel) is opened, and timed from the
//! page's navigation to the frame where every answer shows its rendered table; then new answers
//! are asked from the page's message box and each timed from pressing send to the frame that
//! shows it rendered. The same is measured, in the same run, on a 2-turn conversation: the
//! floor a long conversation is compared with.
//!
//! Run it on release builds:
//! `cargo build --release --locked -p hailer -p hailer-tests --bins && target/release/bench-page`.
//! Needs what the browser tests need (`HAILER_TEST_VENV`, `HAILER_TEST_CHROMIUM`, from
//! `scripts/test-prereqs.sh`). `--samples N` new answers per conversation (default 5), `--turns N`
//! turns of the long one (default 200).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_scripted_model::ScriptedModel;
use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;
use hailer_tests::long_chat::{self, RENDERED_AND_AT_BOTTOM};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(120);
const SHORT: usize = 2;

/// Runs before the page's own scripts: each animation frame, notes when the first answer is
/// shown and when `{WANT}` answers show their rendered Markdown (ms since navigation start).
const WATCH: &str = "(() => {
  const want = {WANT};
  const state = { first: 0, all: 0 };
  window.__pageBench = state;
  const rendered = document.getElementsByClassName('html');
  const answers = document.getElementsByClassName('assistant');
  const tick = () => {
    if (!state.first && answers.length) state.first = performance.now();
    if (rendered.length >= want) { state.all = performance.now(); return; }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();";

/// Asks `arguments[0]` from the message box and answers the ms until the frames that show the
/// question, the answer's text (starting with `arguments[1]`) and the `arguments[2]`-th rendered
/// answer: `{asked, answered, rendered}` (`rendered` -1 after 60 s).
const NEW_ANSWER: &str = "const [question, start, want, done] = arguments;
  const rendered = document.getElementsByClassName('html');
  const users = document.getElementsByClassName('user');
  const answers = document.getElementsByClassName('assistant');
  const asked = users.length;
  const box = document.getElementById('message');
  const t0 = performance.now();
  const times = { asked: 0, answered: 0, rendered: 0 };
  box.value = question;
  document.getElementById('composer').requestSubmit();
  const tick = () => {
    const now = performance.now() - t0;
    if (!times.asked && users.length > asked) times.asked = now;
    const answer = answers[answers.length - 1];
    if (!times.answered && answer && answer.textContent.includes(start)) times.answered = now;
    const last = rendered[rendered.length - 1];
    if (rendered.length >= want && last.textContent.includes(start)) { times.rendered = now; return done(times); }
    if (now > 60000) { times.rendered = -1; return done(times); }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);";

/// The renderer's counters from the DevTools protocol, by name.
async fn metrics(browser: &Browser) -> std::collections::HashMap<String, f64> {
    let reply = browser
        .cdp("Performance.getMetrics", json!({}))
        .await
        .unwrap();
    reply["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|metric| {
            (
                metric["name"].as_str().unwrap().to_owned(),
                metric["value"].as_f64().unwrap(),
            )
        })
        .collect()
}

struct Figures {
    made: Duration,
    first_shown: f64,
    opened: f64,
    at_bottom: bool,
    answers: Vec<f64>,
    asked: Vec<f64>,
    answered: Vec<f64>,
    /// Per new answer: layouts, ms of layout, ms of style, ms of script in the page.
    work: Vec<[f64; 4]>,
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn flag(name: &str, default: usize) -> usize {
    std::env::args()
        .skip_while(|arg| arg != name)
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// Makes a conversation of `turns` turns, opens it, then asks `samples` new answers.
fn measure(runtime: &tokio::runtime::Runtime, turns: usize, samples: usize) -> Figures {
    let model = runtime
        .block_on(ScriptedModel::start(long_chat::script(0..turns + samples)))
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    long_chat::keep_every_turn(&workspace);
    let started = Instant::now();
    long_chat::run_turns(&workspace, 0..turns, Duration::from_secs(60));
    let made = started.elapsed();
    let output = workspace.hailer(&["open", "--print"]);
    assert!(output.status.success(), "{output:?}");
    let link = String::from_utf8_lossy(&output.stdout).trim().to_owned();

    let figures = runtime.block_on(async {
        let browser = Browser::start().await.unwrap();
        browser
            .cdp(
                "Emulation.setDeviceMetricsOverride",
                json!({"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false}),
            )
            .await
            .unwrap();
        browser
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": WATCH.replace("{WANT}", &turns.to_string())}),
            )
            .await
            .unwrap();
        browser.client.goto(&link).await.unwrap();
        let state = browser
            .wait_for(
                "every answer rendered",
                "const s = window.__pageBench; return s && s.all ? s : null",
                WAIT,
            )
            .await
            .unwrap();
        // Whatever the page still had queued, then where its view is.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let shown = browser.eval(RENDERED_AND_AT_BOTTOM).await.unwrap();
        assert_eq!(shown[0], json!(turns), "answers rendered: {shown}");
        browser.cdp("Performance.enable", json!({})).await.unwrap();
        let mut answers = Vec::new();
        let mut asked = Vec::new();
        let mut answered = Vec::new();
        let mut work = Vec::new();
        for sample in 0..samples {
            let turn = turns + sample;
            let before = metrics(&browser).await;
            let took = browser
                .client
                .execute_async(
                    NEW_ANSWER,
                    vec![
                        Value::String(long_chat::question(turn)),
                        Value::String(long_chat::answer_start(turn)),
                        json!(turn + 1),
                    ],
                )
                .await
                .unwrap();
            let rendered = took["rendered"].as_f64().unwrap();
            assert!(
                rendered >= 0.0,
                "answer {turn} was not rendered within 60 s"
            );
            answers.push(rendered);
            asked.push(took["asked"].as_f64().unwrap());
            answered.push(took["answered"].as_f64().unwrap());
            // The audit panel and the shortcuts load after each answer; let them settle.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let after = metrics(&browser).await;
            let delta = |name: &str| after[name] - before[name];
            work.push([
                delta("LayoutCount"),
                delta("LayoutDuration") * 1000.0,
                delta("RecalcStyleDuration") * 1000.0,
                delta("ScriptDuration") * 1000.0,
            ]);
        }
        let followed = browser.eval(RENDERED_AND_AT_BOTTOM).await.unwrap();
        browser.close().await;
        Figures {
            made,
            first_shown: state["first"].as_f64().unwrap(),
            opened: state["all"].as_f64().unwrap(),
            at_bottom: shown[1] == json!(true) && followed[1] == json!(true),
            answers,
            asked,
            answered,
            work,
        }
    });
    let _ = workspace.hailer(&["daemon", "stop"]);
    figures
}

fn main() {
    let samples = flag("--samples", 5).max(1);
    let turns = flag("--turns", 200).max(SHORT + 1);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let short = measure(&runtime, SHORT, samples);
    let long = measure(&runtime, turns, samples);

    println!(
        "chat page in headless Chromium, 1280x800: a {turns}-turn conversation against a {SHORT}-turn one, \
         each turn a kernel run and an answer with a table ({samples} new answers each, medians)"
    );
    println!(
        "  conversations made by `hailer run`: {turns} turns in {:.1} s, {SHORT} in {:.1} s",
        long.made.as_secs_f64(),
        short.made.as_secs_f64()
    );
    println!(
        "{:<52} {:>10} {:>10} {:>7}   target",
        "", "long", "short", "ratio"
    );
    let row = |what: &str, long: f64, short: f64, target: &str| {
        println!(
            "  {what:<50} {long:>7.0} ms {short:>7.0} ms {:>7.2}   {target}",
            long / short
        );
    };
    row(
        "open: navigation to the first answer shown",
        long.first_shown,
        short.first_shown,
        "-",
    );
    row(
        "open: navigation to every answer rendered",
        long.opened,
        short.opened,
        "<= 1500 ms",
    );
    row(
        "new answer: send to the question shown",
        median(&long.asked),
        median(&short.asked),
        "-",
    );
    row(
        "new answer: send to its text shown",
        median(&long.answered),
        median(&short.answered),
        "-",
    );
    let long_answer = median(&long.answers);
    let short_answer = median(&short.answers);
    row(
        "new answer: send to its rendered frame",
        long_answer,
        short_answer,
        "<= 300 ms",
    );
    let all = |answers: &[f64]| {
        answers
            .iter()
            .map(|ms| format!("{ms:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "  new answers, each (ms): long {}; short {}",
        all(&long.answers),
        all(&short.answers)
    );
    let per_answer = |figures: &Figures| {
        let column = |index: usize| {
            median(
                &figures
                    .work
                    .iter()
                    .map(|work| work[index])
                    .collect::<Vec<_>>(),
            )
        };
        format!(
            "{:.0} layouts, {:.1} ms layout, {:.1} ms style, {:.1} ms script",
            column(0),
            column(1),
            column(2),
            column(3)
        )
    };
    println!(
        "  the page's work per new answer (medians, with 0.5 s after it): long {}; short {}",
        per_answer(&long),
        per_answer(&short)
    );
    println!(
        "  view at the bottom once opened and after the new answers: long {}, short {}",
        long.at_bottom, short.at_bottom
    );
    hailer_tests::bench_row(
        &format!("chat page: open a {turns}-turn conversation, every answer rendered"),
        &format!("{:.1} ms", long.opened),
        &format!("{:.1} ms", short.opened),
        "<= 1500 ms",
    );
    hailer_tests::bench_row(
        &format!("chat page: a new answer at {turns} turns, against {SHORT}"),
        &format!("{long_answer:.1} ms"),
        &format!("{short_answer:.1} ms"),
        "<= 300 ms",
    );
    assert!(
        long.at_bottom && short.at_bottom,
        "the view left the bottom"
    );
}
