//! The browser chat page in real headless Chromium: signing in, chatting with the answer
//! streaming, hostile model output, a second client on the same session, reconnecting, and a new
//! conversation or another client's model switch.

use std::time::Duration;

use fantoccini::Locator;
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::browser::Browser;
use hailer_tests::{TestDaemon, TestWorkspace, free_port};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);

const HOSTILE_ANSWER: &str = "Here is **the result**: 42.\n\n\
    <script>window.pwned = 'script'</script>\n\n\
    <img src=x onerror=\"window.pwned = 'img'\">\n\n\
    [a trap](javascript:window.pwned='link') and [docs](https://example.com)\n\n\
    That is all.";

/// A workspace talking to `model`, whose daemon always listens on `port`.
pub(super) fn workspace_for(model: &ScriptedModel, port: u16) -> TestWorkspace {
    let mut workspace = TestWorkspace::scripted(&model.base_url());
    workspace
        .env
        .push(("HAILER_DAEMON_PORT".to_owned(), port.to_string()));
    workspace
}

pub(super) fn open_link(workspace: &TestWorkspace) -> String {
    let output = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(output.status.success(), "{output:?}");
    let link = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(link.starts_with("http://127.0.0.1:"), "{link}");
    assert!(link.contains("/#token="), "{link}");
    link
}

fn hailer_run(workspace: &TestWorkspace, question: &str) {
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", question]));
    assert!(output.status.success(), "{output:?}");
}

/// How many messages of `kind` hold `text`.
async fn count(browser: &Browser, kind: &str, text: &str) -> u64 {
    let script = format!(
        "return [...document.querySelectorAll('.msg.{kind}')].filter(n => n.textContent.includes({})).length",
        json!(text)
    );
    browser.eval(&script).await.unwrap().as_u64().unwrap()
}

async fn errors_in_console(browser: &Browser) -> Vec<String> {
    browser
        .console()
        .await
        .unwrap()
        .into_iter()
        .filter(|(level, _)| level == "SEVERE")
        .map(|(_, message)| message)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_chats_with_a_session_the_terminal_shares_and_survives_reconnects() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6*7)"}),
        ))
        .reply(
            Reply::text(HOSTILE_ANSWER)
                .in_deltas(12)
                .delta_delay(Duration::from_millis(250)),
        )
        .reply(Reply::text("Terminal answer, seen by both.").in_deltas(3))
        .reply(Reply::text("Answer given while the page was away.").in_deltas(3));
    let model = ScriptedModel::start(script).await.unwrap();
    let port = free_port();
    let workspace = workspace_for(&model, port);
    let link = open_link(&workspace);
    let token = workspace.runtime().token;

    // The page's headers.
    let page = hailer_tests::daemon::http_client()
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let header = |name: &str| {
        page.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let csp = header("content-security-policy");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        &format!("connect-src 'self' ws://127.0.0.1:{port}"),
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} missing from {csp}");
    }
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("referrer-policy"), "no-referrer");

    // Sign in: the token leaves the address bar at once and the session opens.
    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    let title = browser
        .wait_for(
            "the session",
            "return !document.getElementById('session').hidden && document.getElementById('session-title').textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(title, workspace.canonical().display().to_string());
    let url = browser.client.current_url().await.unwrap();
    assert!(!url.as_str().contains(&token), "token still in {url}");
    assert_eq!(url.fragment(), None);
    assert_eq!(
        browser
            .eval("return sessionStorage.getItem('hailer.token')")
            .await
            .unwrap(),
        Value::String(token.clone())
    );
    let facts = browser
        .eval("return document.querySelector('.session-head').textContent")
        .await
        .unwrap();
    let facts = facts.as_str().unwrap();
    assert!(facts.contains("scripted:"), "model not shown: {facts}");
    assert!(facts.contains("unsafe-local"), "runtime not shown: {facts}");
    assert_eq!(
        browser
            .eval("return document.getElementById('unsafe-warning').hidden")
            .await
            .unwrap(),
        false
    );

    // Ask, keyboard only: type and press Enter.
    let input = browser.client.find(Locator::Id("message")).await.unwrap();
    input
        .send_keys("What is six times seven?\u{E007}")
        .await
        .unwrap();

    // The answer streams in pieces.
    let streaming = "const n = document.querySelector('.msg.assistant[aria-busy=\"true\"] .text'); return n ? n.textContent : ''";
    let partial = browser
        .wait_for("the answer streaming", streaming, WAIT)
        .await
        .unwrap();
    browser.screenshot("web-page-mid-stream").await.unwrap();
    let partial = partial.as_str().unwrap().to_owned();
    let rendered = browser
        .wait_for(
            "the finished answer",
            "const n = document.querySelector('.msg.assistant .text.html'); return n ? n.innerHTML : ''",
            WAIT,
        )
        .await
        .unwrap();
    browser.screenshot("web-page-answered").await.unwrap();
    let rendered = rendered.as_str().unwrap();
    assert!(
        partial.len() < "Here is the result: 42. That is all.".len(),
        "not seen mid-stream: {partial:?}"
    );
    assert!(
        rendered.contains("<strong>the result</strong>"),
        "{rendered}"
    );
    assert!(rendered.contains("That is all."), "{rendered}");
    for inert in ["<script", "<img", "onerror", "javascript:"] {
        assert!(!rendered.contains(inert), "{inert} in {rendered}");
    }
    // The kernel ran the tool call, so the active notebook is a link into marimo.
    let notebook_link = browser
        .wait_for(
            "the notebook link",
            "const a = document.querySelector('#fact-notebook a'); return a ? [a.textContent, a.href, a.target, a.rel].join(' ') : ''",
            WAIT,
        )
        .await
        .unwrap();
    let notebook_link = notebook_link.as_str().unwrap();
    assert!(
        notebook_link.starts_with("analysis.py http://127.0.0.1:")
            && notebook_link.contains("access_token=")
            && notebook_link.ends_with(" _blank noopener noreferrer"),
        "{notebook_link}"
    );
    // No script ran (an alert would also make this call fail).
    assert_eq!(
        browser.eval("return typeof window.pwned").await.unwrap(),
        "undefined"
    );
    // The trap link lost its target; clicking it does nothing.
    let trap_has_href = browser
        .eval("const trap = [...document.querySelectorAll('.msg.assistant a')].find(a => a.textContent === 'a trap'); trap.click(); return trap.hasAttribute('href')")
        .await
        .unwrap();
    assert_eq!(trap_has_href, false);
    assert_eq!(
        browser.eval("return typeof window.pwned").await.unwrap(),
        "undefined"
    );

    // The tool call is a collapsible block with the code and its result.
    let tool = browser
        .eval(
            "const d = document.querySelector('.msg.tool details'); return d ? d.textContent : ''",
        )
        .await
        .unwrap();
    let tool = tool.as_str().unwrap();
    assert!(tool.contains("marimo_execute"), "tool block: {tool:?}");
    assert!(tool.contains("print(6*7)"), "{tool}");
    assert!(tool.contains("42"), "{tool}");
    let tokens = browser
        .eval("return document.getElementById('fact-tokens').textContent")
        .await
        .unwrap();
    assert!(tokens.as_str().unwrap().contains(" in · "), "{tokens}");

    let errors = errors_in_console(&browser).await;
    assert!(errors.is_empty(), "console errors: {errors:?}");

    // The terminal asks on the same session: the page shows its turn, once.
    hailer_run(&workspace, "And from the terminal?");
    browser
        .wait_for(
            "the terminal's answer",
            "return [...document.querySelectorAll('.msg.assistant')].some(n => n.textContent.includes('Terminal answer, seen by both.') && n.getAttribute('aria-busy') === 'false')",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(count(&browser, "user", "And from the terminal?").await, 1);
    assert_eq!(count(&browser, "user", "You (run)").await, 1);
    assert_eq!(count(&browser, "assistant", "Terminal answer").await, 1);

    // The connection drops and the browser stays offline (DevTools' offline mode blocks new
    // connections but leaves open sockets alone, so the page is told to drop its own); a turn
    // happens meanwhile; back online the page catches up on it, once.
    browser.cdp("Network.enable", json!({})).await.unwrap();
    let offline = |offline: bool| json!({"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1});
    browser
        .cdp("Network.emulateNetworkConditions", offline(true))
        .await
        .unwrap();
    browser
        .eval("window.hailerPage.dropConnection(); return true")
        .await
        .unwrap();
    browser
        .wait_for(
            "that the connection dropped",
            "return document.getElementById('connection').textContent.includes('reconnecting')",
            WAIT,
        )
        .await
        .unwrap();
    hailer_run(&workspace, "A question while the page is away");
    browser
        .cdp("Network.emulateNetworkConditions", offline(false))
        .await
        .unwrap();
    browser
        .wait_for(
            "the missed answer",
            "return document.querySelector('.conversation').textContent.includes('Answer given while the page was away.')",
            WAIT,
        )
        .await
        .unwrap();
    browser.screenshot("web-page-caught-up").await.unwrap();
    assert_eq!(
        count(&browser, "user", "A question while the page is away").await,
        1
    );
    assert_eq!(
        count(
            &browser,
            "assistant",
            "Answer given while the page was away."
        )
        .await,
        1
    );
    assert_eq!(count(&browser, "assistant", "Terminal answer").await, 1);
    assert_eq!(count(&browser, "user", "What is six times seven?").await, 1);

    // The daemon restarts (same port, new token): the page says to open a new link, and the
    // new link works.
    let stopped = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(stopped.status.success(), "{stopped:?}");
    // The old daemon lets go of the port before the new one takes it.
    let deadline = std::time::Instant::now() + WAIT;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "the old daemon still listens"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let started = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "start"]));
    assert!(
        started.status.success(),
        "{started:?}\n{}\n{}",
        workspace.daemon_log(),
        hailer_tests::workspace::all_command_lines()
            .lines()
            .filter(|line| line.contains("hailerd"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let reason = browser
        .wait_for(
            "the sign-in notice after the restart",
            "return !document.getElementById('gate').hidden && document.getElementById('gate').textContent",
            WAIT,
        )
        .await
        .unwrap();
    let reason = reason.as_str().unwrap();
    assert!(reason.contains("hailer open"), "{reason}");
    assert!(reason.contains("restarted"), "{reason}");
    assert_eq!(
        browser
            .eval("return document.getElementById('app').hidden")
            .await
            .unwrap(),
        true
    );
    let link = open_link(&workspace);
    browser.client.goto(&link).await.unwrap();
    browser
        .wait_for(
            "the session after signing in again",
            "return !document.getElementById('session').hidden && document.getElementById('connection').textContent === 'Connected'",
            WAIT,
        )
        .await
        .unwrap();
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_valid_token_the_page_shows_only_how_to_sign_in() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let browser = Browser::start().await.unwrap();
    for (link, wrong) in [
        (daemon.url("/"), false),
        (
            daemon.url("/#token=0000000000000000000000000000000000000000000000000000000000000000"),
            true,
        ),
    ] {
        browser.client.goto(&link).await.unwrap();
        let gate = browser
            .wait_for(
                "the sign-in notice",
                "return !document.getElementById('gate').hidden && document.getElementById('gate').textContent",
                WAIT,
            )
            .await
            .unwrap();
        let gate = gate.as_str().unwrap();
        assert!(
            gate.contains("open the link from hailer open")
                || gate.contains("Open the link from hailer open"),
            "{gate}"
        );
        assert_eq!(
            browser
                .eval("return document.getElementById('app').hidden")
                .await
                .unwrap(),
            true
        );
        assert_eq!(
            browser
                .eval("return document.getElementById('session-list').children.length")
                .await
                .unwrap(),
            0
        );
        assert_eq!(
            browser
                .eval("return sessionStorage.getItem('hailer.token')")
                .await
                .unwrap(),
            Value::Null
        );
        let url = browser.client.current_url().await.unwrap();
        assert_eq!(url.fragment(), None, "{url} (wrong token: {wrong})");
    }
    browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_needs_no_token_but_the_host_and_origin_rules_hold() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let client = hailer_tests::daemon::http_client();
    for path in ["/", "/app.js", "/audit.js", "/app.css"] {
        let ok = client.get(daemon.url(path)).send().await.unwrap();
        assert_eq!(ok.status(), 200, "{path}");
        let foreign = client
            .get(daemon.url(path))
            .header("Host", format!("evil.example:{}", daemon.runtime.port))
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), 403, "{path}");
    }
    let render = |origin: &str| {
        client
            .post(daemon.url("/v1/render"))
            .bearer_auth(daemon.token())
            .header("Origin", origin)
            .json(&json!({"markdown": "<script>x()</script>\n\n*hi*"}))
            .send()
    };
    let own = render(&daemon.base_url()).await.unwrap();
    assert_eq!(own.status(), 200);
    let body: Value = own.json().await.unwrap();
    assert_eq!(body["html"].as_str().unwrap().trim(), "<p><em>hi</em></p>");
    for foreign in [
        "http://evil.example",
        "http://localhost.evil.example",
        "null",
        "https://127.0.0.1",
    ] {
        let refused = render(foreign).await.unwrap();
        assert_eq!(refused.status(), 403, "{foreign}");
    }
    let unsigned = client
        .post(daemon.url("/v1/render"))
        .json(&json!({"markdown": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_conversation_button_asks_first_then_clears_the_view() {
    let script = Script::new()
        .reply(Reply::text("The first answer."))
        .reply(
            Reply::text("word ".repeat(200))
                .in_deltas(200)
                .delta_delay(Duration::from_millis(50)),
        )
        .reply(Reply::text("After the fresh start."));
    let model = ScriptedModel::start(script).await.unwrap();
    let port = free_port();
    let workspace = workspace_for(&model, port);
    let link = open_link(&workspace);
    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    browser
        .wait_for(
            "the session",
            "return !document.getElementById('session').hidden && document.getElementById('connection').textContent === 'Connected'",
            WAIT,
        )
        .await
        .unwrap();
    let input = browser.client.find(Locator::Id("message")).await.unwrap();
    input.send_keys("The first question\u{E007}").await.unwrap();
    let answered = "return [...document.querySelectorAll('.msg.assistant')].some(n => n.textContent.includes('The first answer.') && n.getAttribute('aria-busy') === 'false')";
    browser
        .wait_for("the first answer", answered, WAIT)
        .await
        .unwrap();

    // The button is a labelled control reached from the keyboard; Enter asks for confirmation
    // and moves the focus to it; Escape keeps the conversation.
    let button = browser
        .client
        .find(Locator::Id("new-conversation"))
        .await
        .unwrap();
    assert_eq!(
        browser
            .eval("const b = document.getElementById('new-conversation'); return b.tagName + ':' + b.textContent.trim() + ':' + b.tabIndex")
            .await
            .unwrap(),
        "BUTTON:New conversation:0"
    );
    let focused = "return document.activeElement && document.activeElement.id";
    let confirm_shown = "return !document.getElementById('new-confirm').hidden";
    button.send_keys("\u{E007}").await.unwrap();
    browser
        .wait_for("the confirmation", confirm_shown, WAIT)
        .await
        .unwrap();
    assert_eq!(browser.eval(focused).await.unwrap(), "new-confirm-yes");
    browser
        .screenshot("web-page-new-conversation-confirm")
        .await
        .unwrap();
    let question = browser
        .eval("return document.getElementById('new-confirm-text').textContent")
        .await
        .unwrap();
    assert!(question.as_str().unwrap().contains("deleted"), "{question}");
    let yes = browser
        .client
        .find(Locator::Id("new-confirm-yes"))
        .await
        .unwrap();
    yes.send_keys("\u{E00C}").await.unwrap();
    browser
        .wait_for(
            "the confirmation to close",
            "return document.getElementById('new-confirm').hidden",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(browser.eval(focused).await.unwrap(), "new-conversation");
    assert_eq!(count(&browser, "user", "The first question").await, 1);

    // While the agent answers, the daemon refuses and the page says why.
    input
        .send_keys("A long story, please\u{E007}")
        .await
        .unwrap();
    browser
        .wait_for(
            "the answer streaming",
            "return document.querySelector('.msg.assistant[aria-busy=\"true\"]')",
            WAIT,
        )
        .await
        .unwrap();
    button.send_keys("\u{E007}").await.unwrap();
    browser
        .wait_for("the confirmation", confirm_shown, WAIT)
        .await
        .unwrap();
    yes.send_keys("\u{E007}").await.unwrap();
    let refusal = browser
        .wait_for(
            "the refusal",
            "return document.getElementById('composer-error').textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert!(
        refusal.as_str().unwrap().contains("still answering"),
        "{refusal}"
    );
    assert_eq!(count(&browser, "user", "The first question").await, 1);
    browser
        .client
        .find(Locator::Id("cancel"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_for(
            "the cancelled answer",
            "return document.querySelector('.conversation').textContent.includes('The answer was cancelled.')",
            WAIT,
        )
        .await
        .unwrap();

    // Confirmed: the view empties, the counters start again, the model no longer sees the
    // earlier turns.
    button.send_keys("\u{E007}").await.unwrap();
    browser
        .wait_for("the confirmation", confirm_shown, WAIT)
        .await
        .unwrap();
    yes.send_keys("\u{E007}").await.unwrap();
    let notice = browser
        .wait_for(
            "the emptied conversation",
            "const list = document.getElementById('conversation'); return list.querySelectorAll('.msg.user, .msg.assistant').length === 0 && list.textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert!(
        notice
            .as_str()
            .unwrap()
            .contains("You started a new conversation"),
        "{notice}"
    );
    assert_eq!(
        browser
            .eval("return document.getElementById('fact-tokens').textContent")
            .await
            .unwrap(),
        "none yet"
    );
    assert_eq!(browser.eval(focused).await.unwrap(), "message");
    browser
        .screenshot("web-page-new-conversation")
        .await
        .unwrap();
    input.send_keys("A fresh question\u{E007}").await.unwrap();
    browser
        .wait_for(
            "the answer after the fresh start",
            "return document.querySelector('.conversation').textContent.includes('After the fresh start.')",
            WAIT,
        )
        .await
        .unwrap();
    let sent = model.requests().last().unwrap().body.to_string();
    assert!(sent.contains("A fresh question"), "{sent}");
    assert!(!sent.contains("The first question"), "{sent}");

    // Another client switches the model: the page shows the new model and starts afresh.
    let (client, base, token) = workspace.api();
    let sessions = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let switched = client
        .post(format!("{base}/v1/sessions/{id}/conversation"))
        .bearer_auth(&token)
        .json(&json!({
            "model": "scripted:other-model",
            "client": "api",
            "env": {hailer_tests::workspace::SCRIPTED_KEY_VARIABLE: hailer_tests::workspace::SCRIPTED_KEY},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(switched.status(), 200);
    browser
        .wait_for(
            "the switched model",
            "return document.getElementById('fact-model').textContent === 'scripted:other-model'",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(count(&browser, "user", "A fresh question").await, 0);
    assert_eq!(
        count(
            &browser,
            "notice",
            "The api client switched the model to scripted:other-model"
        )
        .await,
        1
    );
    // Chromium logs the refused request itself; nothing else may go wrong.
    let errors: Vec<String> = errors_in_console(&browser)
        .await
        .into_iter()
        .filter(|error| !error.contains("status of 409 (Conflict)"))
        .collect();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    browser.close().await;
}
