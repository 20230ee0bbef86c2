//! The chat page's performance in headless Chromium: first paint, and a 10,000-message
//! conversation drawn and scrolled. Prints the figures; fails past the budgets.

use std::time::Duration;

use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);
const MESSAGES: u64 = 10_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_paint_and_a_10000_message_conversation_stay_fast() {
    let workspace = TestWorkspace::unsafe_local();
    let output = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(output.status.success(), "{output:?}");
    let link = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let browser = Browser::start().await.unwrap();

    // First paint of the signed page, the best of three loads (the first also pays for the
    // browser's own start-up, and the machine is shared with builds).
    let mut first_paint = f64::MAX;
    for _ in 0..3 {
        browser.client.goto(&link).await.unwrap();
        let paint = browser
            .wait_for(
                "its first contentful paint",
                "const e = performance.getEntriesByName('first-contentful-paint')[0]; return e ? e.startTime : 0",
                WAIT,
            )
            .await
            .unwrap()
            .as_f64()
            .unwrap();
        first_paint = first_paint.min(paint);
    }
    browser
        .wait_for(
            "the session",
            "return !document.getElementById('session').hidden",
            WAIT,
        )
        .await
        .unwrap();

    // The kernel's start sends events of its own: once it is idle, no other event takes the
    // sequence numbers the fed ones use.
    let started = std::time::Instant::now();
    loop {
        let sessions = workspace.get_json("/v1/sessions").await;
        if sessions["sessions"][0]["kernel"] == "idle" {
            break;
        }
        assert!(
            started.elapsed() < WAIT,
            "the kernel never became idle: {sessions}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    browser
        .wait_for(
            "the page to have every event so far",
            "return window.hailerPage.pendingNodes() === 0",
            WAIT,
        )
        .await
        .unwrap();

    // 10,000 messages: 5,000 questions and their answers, fed as the session's events would
    // arrive, then drawn a few hundred per frame.
    let first_seq = browser
        .eval("return window.hailerPage.lastSeq()")
        .await
        .unwrap()
        .as_u64()
        .unwrap()
        + 1;
    let mut envelopes = Vec::new();
    for turn in 0..MESSAGES / 2 {
        let id = format!("t{turn}");
        envelopes.push(json!({"seq": first_seq + turn * 2, "at": 0, "event": {
            "type": "turnStarted", "turn_id": id, "text": format!("Question {turn}: what changed in March?"), "client": "run"}}));
        envelopes.push(json!({"seq": first_seq + turn * 2 + 1, "at": 0, "event": {
            "type": "textDelta", "turn_id": id, "delta": format!("Answer {turn}: revenue fell 4% because two large customers paused their orders.")}}));
    }
    let timing = browser
        .client
        .execute_async(
            "const [envelopes, done] = arguments;
             const start = performance.now();
             window.hailerPage.feed(envelopes);
             const fed = performance.now() - start;
             const wait = () => window.hailerPage.pendingNodes() > 0
               ? requestAnimationFrame(wait)
               : done({ fed, drawn: performance.now() - start });
             requestAnimationFrame(wait);",
            vec![Value::Array(envelopes)],
        )
        .await
        .unwrap();
    let drawn = timing["drawn"].as_f64().unwrap();
    let fed = timing["fed"].as_f64().unwrap();
    let count = browser
        .eval("return document.querySelectorAll('#conversation .msg').length")
        .await
        .unwrap()
        .as_u64()
        .unwrap();
    assert!(count >= MESSAGES, "{count} messages drawn");

    // Scroll from the top to the bottom in 40 steps, one per frame; the longest frame counts.
    // The best of three passes, as for the first paint: one stall of the shared machine is not
    // the page's.
    let mut longest_frame = f64::MAX;
    let mut scroll_total = f64::MAX;
    for _ in 0..3 {
        let scroll = browser
            .client
            .execute_async(
                "const done = arguments[0];
                 const list = document.getElementById('conversation');
                 list.scrollTop = 0;
                 const steps = 40;
                 let step = 0, last = performance.now(), longest = 0;
                 const start = last;
                 const next = () => {
                   const now = performance.now();
                   longest = Math.max(longest, now - last);
                   last = now;
                   if (step++ === steps) return done({ total: now - start, longest });
                   list.scrollTop = (list.scrollHeight - list.clientHeight) * step / steps;
                   requestAnimationFrame(next);
                 };
                 requestAnimationFrame(next);",
                Vec::new(),
            )
            .await
            .unwrap();
        let longest = scroll["longest"].as_f64().unwrap();
        if longest < longest_frame {
            longest_frame = longest;
            scroll_total = scroll["total"].as_f64().unwrap();
        }
    }
    browser.screenshot("web-page-10000-messages").await.unwrap();
    let size: usize = ["/", "/app.js", "/audit.js", "/work.js", "/app.css"]
        .iter()
        .map(|path| {
            let port = workspace.runtime().port;
            std::process::Command::new("curl")
                .args(["-s", &format!("http://127.0.0.1:{port}{path}")])
                .output()
                .map(|output| output.stdout.len())
                .unwrap_or(0)
        })
        .sum();
    println!(
        "chat page: {size} bytes uncompressed; first contentful paint {first_paint:.0} ms; \
         {count} messages fed in {fed:.0} ms and drawn in {drawn:.0} ms; \
         scrolled top to bottom in {scroll_total:.0} ms, longest frame {longest_frame:.0} ms"
    );
    assert!(size > 0 && size <= 100 * 1024, "the page is {size} bytes");
    // The aim is 200 ms; on a 2-core machine shared with builds it measures 200-300 ms, so the
    // test guards against regressions at 500 ms.
    assert!(
        first_paint <= 500.0,
        "first contentful paint took {first_paint} ms"
    );
    assert!(drawn < 20_000.0, "drawing {count} messages took {drawn} ms");
    assert!(
        longest_frame < 1_000.0,
        "a scroll frame took {longest_frame} ms"
    );
    browser.close().await;
}
