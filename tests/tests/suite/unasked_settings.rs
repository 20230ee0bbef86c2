//! No setting the user did not ask for: a provider of the user's own gets no reasoning setting
//! unless hailer.toml names one, and the built-in provider's default, when its endpoint refuses
//! it, is left out once and the user told. Real hailerd, a real kernel, the scripted model server
//! recording every request.

use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::Value;

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run(workspace: &TestWorkspace, question: &str) -> String {
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", question]));
    assert!(output.status.success(), "{}", said(&output));
    said(&output)
}

/// The reasoning setting a request body carries, on either wire API.
fn reasoning(body: &Value) -> Option<Value> {
    body.get("reasoning_effort")
        .or_else(|| body.get("reasoning"))
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_providers_first_request_carries_no_reasoning_setting_the_user_did_not_write() {
    for wire in ["chat", "responses"] {
        let model = ScriptedModel::start(Script::new().reply_text("An answer."))
            .await
            .unwrap();
        let workspace = TestWorkspace::scripted_with(&model.base_url(), wire, true);
        assert!(run(&workspace, "A question").contains("An answer."));
        let requests = model.requests();
        assert_eq!(requests.len(), 1, "{wire}");
        assert_eq!(
            reasoning(&requests[0].body),
            None,
            "{wire}: {}",
            requests[0].body
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reasoning_effort_the_user_wrote_is_sent_to_their_provider() {
    let model = ScriptedModel::start(Script::new().reply_text("An answer."))
        .await
        .unwrap();
    let workspace = TestWorkspace::unsafe_local_with_env(vec![(
        "SCRIPTED_KEY".to_owned(),
        "scripted-key-7f3a9c1e5b".to_owned(),
    )]);
    workspace.use_scripted_model(
        &model.base_url(),
        "chat",
        true,
        "reasoning_effort = \"high\"\n",
    );
    run(&workspace, "A question");
    let requests = model.requests();
    assert_eq!(
        requests[0].body["reasoning_effort"], "high",
        "{}",
        requests[0].body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_default_reasoning_effort_is_left_out_once_and_said_once() {
    let model = ScriptedModel::start(
        Script::new()
            .fail_with(
                400,
                "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            )
            .reply_text("The first answer.")
            .reply_text("The second answer."),
    )
    .await
    .unwrap();
    // The built-in provider, pointed at the scripted server: it keeps the documented default.
    let workspace = TestWorkspace::scripted(&model.base_url());
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let toml = toml
        .replace("provider = \"scripted\"\n", "")
        .replace("[model_providers.scripted]", "[model_providers.openai]");
    workspace.write("hailer.toml", &toml);
    workspace.trust();

    let first = run(&workspace, "The first question");
    assert!(first.contains("The first answer."), "{first}");
    assert_eq!(
        first
            .matches("does not accept the default reasoning_effort")
            .count(),
        1,
        "{first}"
    );
    let second = run(&workspace, "The second question");
    assert!(second.contains("The second answer."), "{second}");
    assert!(!second.contains("reasoning_effort"), "said again: {second}");

    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[0].body["reasoning_effort"], "medium",
        "{}",
        requests[0].body
    );
    assert_eq!(reasoning(&requests[1].body), None, "{}", requests[1].body);
    assert_eq!(reasoning(&requests[2].body), None, "{}", requests[2].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_reasoning_effort_the_user_wrote_fails_the_turn_with_their_setting_named() {
    let model = ScriptedModel::start(Script::new().fail_with(
        400,
        "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
    ))
    .await
    .unwrap();
    let workspace = TestWorkspace::unsafe_local_with_env(vec![(
        "SCRIPTED_KEY".to_owned(),
        "scripted-key-7f3a9c1e5b".to_owned(),
    )]);
    workspace.use_scripted_model(
        &model.base_url(),
        "chat",
        true,
        "reasoning_effort = \"low\"\n",
    );
    let output = tokio::task::block_in_place(|| workspace.hailer(&["run", "A question"]));
    assert!(!output.status.success(), "{}", said(&output));
    assert!(
        said(&output).contains("reasoning_effort = \"low\""),
        "{}",
        said(&output)
    );
    assert_eq!(
        model.requests().len(),
        1,
        "asked again without the user's setting"
    );
}
