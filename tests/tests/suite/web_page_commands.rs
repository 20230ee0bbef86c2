//! `/skill` and `/prompt` in the browser chat page: offered as buttons, sent as the daemon's skill
//! and prompt turns, and refused clearly when they name nothing.

use std::time::Duration;

use fantoccini::Locator;
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(60);

/// The text of the last user message the model received in request `index`.
fn last_user_message(model: &ScriptedModel, index: usize) -> String {
    model.requests()[index]
        .conversation()
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

async fn wait_for_requests(model: &ScriptedModel, count: usize) {
    let deadline = std::time::Instant::now() + WAIT;
    while model.requests().len() < count {
        assert!(
            std::time::Instant::now() < deadline,
            "the model got {} requests, not {count}",
            model.requests().len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn answers(browser: &Browser, count: usize) {
    browser
        .wait_for(
            "the answer",
            &format!(
                "return document.querySelectorAll('.msg.assistant .text.html').length >= {count}"
            ),
            WAIT,
        )
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_offers_and_sends_skills_and_prompts() {
    let model = ScriptedModel::start(
        Script::new()
            .reply(Reply::text("Prompt answered."))
            .reply(Reply::text("Skill answered.")),
    )
    .await
    .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    workspace.write(
        ".config/hailer/skills/monthly-pack/SKILL.md",
        "---\nname: Monthly pack\ndescription: Builds the monthly KPI pack.\n---\n# Monthly pack\n\nStart with list_periods.\n",
    );
    workspace.write(
        ".config/hailer/prompts/first-look.md",
        "Take a first look at {{args}} and list its columns.\n",
    );
    let output = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(output.status.success(), "{output:?}");
    let link = String::from_utf8_lossy(&output.stdout).trim().to_owned();

    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    // The workspace's skills and prompts are offered.
    let offered = browser
        .wait_for(
            "the skills and prompts",
            "const s = document.getElementById('shortcuts'); return s.hidden ? '' : s.textContent",
            WAIT,
        )
        .await
        .unwrap();
    let offered = offered.as_str().unwrap();
    for command in ["/skill monthly-pack", "/prompt first-look"] {
        assert!(
            offered.contains(command),
            "{command} not offered: {offered}"
        );
    }

    // A prompt button starts the message; the arguments follow; Enter sends it.
    let prompt_button = browser
        .client
        .find(Locator::XPath(
            "//ul[@id='shortcut-list']//button[normalize-space()='/prompt first-look']",
        ))
        .await
        .unwrap();
    prompt_button.click().await.unwrap();
    let input = browser.client.find(Locator::Id("message")).await.unwrap();
    input.send_keys("sales.parquet\u{E007}").await.unwrap();
    wait_for_requests(&model, 1).await;
    answers(&browser, 1).await;
    assert_eq!(
        last_user_message(&model, 0).trim(),
        "Take a first look at sales.parquet and list its columns."
    );

    // A skill typed by hand, by its folder, with a message.
    input
        .send_keys("/skill monthly-pack Build March.\u{E007}")
        .await
        .unwrap();
    wait_for_requests(&model, 2).await;
    answers(&browser, 2).await;
    let sent = last_user_message(&model, 1);
    assert!(sent.contains("Start with list_periods."), "{sent}");
    assert!(sent.contains("Build March."), "{sent}");

    // Naming nothing, or a skill that does not exist: a clear message, nothing sent.
    for (typed, expected) in [
        ("/skill", "Name the skill"),
        (
            "/skill forecasting now",
            "there is no skill named 'forecasting'",
        ),
        ("/prompt nope", "Available prompts: first-look."),
    ] {
        input.clear().await.unwrap();
        input.send_keys(&format!("{typed}\u{E007}")).await.unwrap();
        let said = browser
            .wait_for(
                "the refusal",
                "return document.getElementById('composer-error').textContent",
                WAIT,
            )
            .await
            .unwrap();
        assert!(said.as_str().unwrap().contains(expected), "{typed}: {said}");
        let kept: Value = browser
            .eval("return document.getElementById('message').value")
            .await
            .unwrap();
        assert_eq!(kept, typed, "the draft is kept");
        browser
            .eval("document.getElementById('composer-error').textContent = ''; return 0")
            .await
            .unwrap();
    }
    assert_eq!(
        model.requests().len(),
        2,
        "a refused command reached the model"
    );
    browser.close().await;
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
