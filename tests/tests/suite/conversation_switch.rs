//! A new conversation and a model switch inside a running session, through the daemon's API:
//! what the model is sent next, what the conversation store keeps, the event every client gets,
//! and refusals (a running turn, hostile bodies) that leave the session working.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::{self, LiveSession};
use hailer_tests::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE};
use serde_json::{Value, json};

/// A scripted workspace whose keys are kept in the file store (never the OS one), with a second
/// provider, `second`, whose key variable nobody sets.
fn workspace_for(model: &ScriptedModel) -> TestWorkspace {
    let workspace = TestWorkspace::unsafe_local_with_env(vec![(
        SCRIPTED_KEY_VARIABLE.to_owned(),
        SCRIPTED_KEY.to_owned(),
    )]);
    workspace.use_scripted_model(
        &model.base_url(),
        "chat",
        true,
        "credentials_store = \"file\"\n",
    );
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &format!(
            "{toml}\n[model_providers.second]\nbase_url = \"{}\"\nenv_key = \"SECOND_KEY\"\nwire_api = \"chat\"\n",
            model.base_url()
        ),
    );
    workspace.trust();
    workspace
}

/// Every thread of the workspace's store, oldest first: id, model, provider, turns, items.
fn threads(workspace: &TestWorkspace) -> Vec<(String, String, String, i64, i64)> {
    let store = workspace.path().join(".hailer").join("threads.sqlite");
    let connection = rusqlite::Connection::open(store).unwrap();
    let mut query = connection
        .prepare(
            "SELECT id, model, provider, turns, \
             (SELECT count(*) FROM items WHERE items.thread_id = threads.id) \
             FROM threads ORDER BY rowid",
        )
        .unwrap();
    query
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

async fn ask_and_wait(live: &mut LiveSession, text: &str) -> Value {
    live.ask(text).await;
    let (_, finished, _) = live.until("turnFinished").await;
    finished
}

async fn session_model(live: &LiveSession) -> String {
    let info: Value = live
        .client
        .get(format!("{}/v1/sessions/{}", live.base, live.id))
        .bearer_auth(&live.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    info["model"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_conversation_sends_no_earlier_messages_and_replaces_the_stored_thread() {
    let script = Script::new()
        .reply_text("The first answer.")
        .reply_text("The second answer.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model);
    let mut live = LiveSession::start(&workspace).await;
    let mut other_client = live.subscribe().await;

    ask_and_wait(&mut live, "The first question").await;
    let before = threads(&workspace);
    assert_eq!(before.len(), 1, "{before:?}");
    assert_eq!(before[0].3, 1, "one turn counted: {before:?}");

    let (status, body) = live
        .post("/conversation", json!({"model": null, "client": "api"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"model": "gpt-5.5", "provider": "scripted", "reason": "new"})
    );
    // Every attached client is told.
    let (_, event, _) = live.until("conversationStarted").await;
    let (_, seen_by_other, _) = live::until(&mut other_client, "conversationStarted").await;
    for event in [&event, &seen_by_other] {
        assert_eq!(event["model"], "gpt-5.5", "{event}");
        assert_eq!(event["provider"], "scripted", "{event}");
        assert_eq!(event["reason"], "new", "{event}");
        assert_eq!(event["client"], "api", "{event}");
    }

    // The store holds one fresh thread with its counters at zero; the old one is gone.
    let after = threads(&workspace);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after[0].0, before[0].0);
    assert_eq!((after[0].3, after[0].4), (0, 0), "{after:?}");
    assert_eq!(session_model(&live).await, "scripted:gpt-5.5");

    let finished = ask_and_wait(&mut live, "The second question").await;
    assert_eq!(finished["text"], "The second answer.");
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let sent = requests[1].body.to_string();
    assert!(sent.contains("The second question"), "{sent}");
    for earlier in ["The first question", "The first answer."] {
        assert!(
            !sent.contains(earlier),
            "{earlier:?} was sent again: {sent}"
        );
    }
    let users = requests[1]
        .conversation()
        .iter()
        .filter(|message| message["role"] == "user")
        .count();
    assert_eq!(users, 1, "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_switch_uses_the_new_model_until_the_session_ends() {
    let script = Script::new()
        .reply_text("Answer from the configured model.")
        .reply_text("Answer from the other model.")
        .reply_text("Answer after the restart.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model);
    let mut live = LiveSession::start(&workspace).await;
    let env = json!({SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY});

    ask_and_wait(&mut live, "A question for the configured model").await;

    // A provider without a key anywhere: refused with the exact fix, nothing changes.
    let (status, body) = live
        .post(
            "/conversation",
            json!({"model": "second:their-model", "env": env}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    let (message, hint) = (
        body["message"].as_str().unwrap(),
        body["hint"].as_str().unwrap(),
    );
    assert!(message.contains("SECOND_KEY"), "{body}");
    assert!(hint.contains("`hailer login second`"), "{body}");
    assert!(hint.contains("SECOND_KEY"), "{body}");
    // (A client whose environment lacks the scripted key may still switch to another model of
    // that provider: the live session keeps the key an earlier client sent.)
    assert_eq!(session_model(&live).await, "scripted:gpt-5.5");

    let (status, body) = live
        .post(
            "/conversation",
            json!({"model": "scripted:other-model", "client": "api", "env": env}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"model": "other-model", "provider": "scripted", "reason": "model"})
    );
    let (_, event, before) = live.until("conversationStarted").await;
    assert_eq!(event["model"], "other-model", "{event}");
    assert_eq!(event["reason"], "model", "{event}");
    assert!(
        !before.iter().any(|e| e["type"] == "conversationStarted"),
        "a refused switch was announced: {before:?}"
    );
    assert_eq!(session_model(&live).await, "scripted:other-model");

    let finished = ask_and_wait(&mut live, "A question for the other model").await;
    assert_eq!(finished["text"], "Answer from the other model.");
    let requests = model.requests();
    assert_eq!(requests[0].body["model"], "gpt-5.5");
    assert_eq!(requests[1].body["model"], "other-model");
    let sent = requests[1].body.to_string();
    assert!(
        !sent.contains("A question for the configured model"),
        "the switch starts a new conversation: {sent}"
    );
    assert_eq!(
        requests[1].bearer_token(),
        Some(SCRIPTED_KEY),
        "the key the client sent"
    );

    // The earlier conversation is kept beside the new one.
    let stored = threads(&workspace);
    let summary: Vec<(&str, &str, i64)> = stored
        .iter()
        .map(|(_, model, provider, turns, _)| (model.as_str(), provider.as_str(), *turns))
        .collect();
    assert_eq!(
        summary,
        [("gpt-5.5", "scripted", 1), ("other-model", "scripted", 1)]
    );

    // The next session uses the configured model again, going on with its conversation.
    let (status, ()) = {
        let response = live
            .client
            .delete(format!("{}/v1/sessions/{}", live.base, live.id))
            .bearer_auth(&live.token)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), ())
    };
    assert_eq!(status, 200);
    let mut next = LiveSession::start(&workspace).await;
    assert_eq!(session_model(&next).await, "scripted:gpt-5.5");
    let finished = ask_and_wait(&mut next, "Back to the configured model").await;
    assert_eq!(finished["text"], "Answer after the restart.");
    let requests = model.requests();
    let last = requests.last().unwrap();
    assert_eq!(last.body["model"], "gpt-5.5");
    let sent = last.body.to_string();
    assert!(
        sent.contains("A question for the configured model"),
        "{sent}"
    );
    assert!(!sent.contains("A question for the other model"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_conversation_waits_for_the_running_turn() {
    let script = Script::new()
        .reply(
            Reply::text("word ".repeat(200))
                .in_deltas(200)
                .delta_delay(Duration::from_millis(50)),
        )
        .reply_text("After the fresh start.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model);
    let mut live = LiveSession::start(&workspace).await;

    live.ask("Tell me a long story").await;
    live.until("textDelta").await;
    for body in [
        json!({"model": null}),
        json!({"model": "scripted:other-model", "env": {SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY}}),
    ] {
        let (status, refused) = live.post("/conversation", body).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(refused["code"], "conflict", "{refused}");
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("a turn is running"),
            "{refused}"
        );
    }
    let (status, _) = live.post("/cancel", json!({})).await;
    assert_eq!(status, 200);
    live.until("turnCancelled").await;

    let (status, body) = live.post("/conversation", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let finished = ask_and_wait(&mut live, "Start over").await;
    assert_eq!(finished["text"], "After the fresh start.");
    let sent = model.requests()[1].body.to_string();
    assert!(!sent.contains("Tell me a long story"), "{sent}");
    assert_eq!(model.requests()[1].body["model"], "gpt-5.5");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_conversation_requests_are_refused_and_the_session_goes_on() {
    let model = ScriptedModel::start(Script::new().reply_text("Still answering."))
        .await
        .unwrap();
    let workspace = workspace_for(&model);
    let mut live = LiveSession::start(&workspace).await;
    let env = json!({SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY});
    let huge = "m".repeat(100_000);

    for (model_spec, expected) in [
        ("nowhere:some-model", "declared: openai, scripted, second"),
        ("", "empty"),
        ("   ", "spaces or control characters"),
        ("scripted:", "no model name"),
        (":some-model", "provider before ':' is empty"),
        ("gpt 5", "spaces or control characters"),
        ("gpt\u{0}5", "spaces or control characters"),
        ("gpt\n5", "spaces or control characters"),
        (huge.as_str(), "at most 200"),
    ] {
        let (status, body) = live
            .post("/conversation", json!({"model": model_spec, "env": env}))
            .await;
        assert_eq!(status, 400, "{model_spec:.40}: {body}");
        assert_eq!(body["code"], "bad_request", "{body}");
        let message = body["message"].as_str().unwrap();
        assert!(message.contains(expected), "{model_spec:.40}: {message}");
        assert!(
            body.to_string().len() < 600,
            "the refusal repeats the input: {:.200}",
            body.to_string()
        );
    }
    let (_, body) = live
        .post("/conversation", json!({"model": "nowhere:m"}))
        .await;
    assert!(
        body["hint"]
            .as_str()
            .unwrap()
            .contains("[model_providers.nowhere]"),
        "{body}"
    );

    let raw = |body: &'static str| {
        live.client
            .post(format!(
                "{}/v1/sessions/{}/conversation",
                live.base, live.id
            ))
            .bearer_auth(&live.token)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
    };
    for body in [
        "not json",
        "{\"model\": 5}",
        "[]",
        "{\"model\": {\"name\": \"x\"}}",
        "",
    ] {
        let response = raw(body).await.unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let said: Value = response.json().await.unwrap();
        assert_eq!(said["code"], "bad_request", "{body}: {said}");
    }
    let missing = live
        .client
        .post(format!(
            "{}/v1/sessions/s_000000000000/conversation",
            live.base
        ))
        .bearer_auth(&live.token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let unsigned = live
        .client
        .post(format!(
            "{}/v1/sessions/{}/conversation",
            live.base, live.id
        ))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 401);

    // Nothing changed, nothing was announced, and the session still answers.
    assert_eq!(session_model(&live).await, "scripted:gpt-5.5");
    live.ask("Are you still there?").await;
    let (_, finished, before) = live.until("turnFinished").await;
    assert_eq!(finished["text"], "Still answering.");
    assert!(
        !before.iter().any(|e| e["type"] == "conversationStarted"),
        "{before:?}"
    );
    assert_eq!(model.requests()[0].body["model"], "gpt-5.5");
    assert_eq!(threads(&workspace).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_on_a_running_session_starts_its_conversation_again() {
    let script = Script::new()
        .reply_text("The first answer.")
        .reply_text("A fresh answer.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model);
    let mut live = LiveSession::start(&workspace).await;
    ask_and_wait(&mut live, "The first question").await;
    let before = threads(&workspace);

    let run = tokio::task::block_in_place(|| {
        workspace.hailer(&["run", "--new", "A question with a clean slate"])
    });
    assert!(run.status.success(), "{run:?}");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("A fresh answer."), "{said}");
    assert!(!said.contains("Resumed"), "{said}");
    let (_, event, _) = live.until("conversationStarted").await;
    assert_eq!(event["reason"], "new", "{event}");
    let sent = model.requests()[1].body.to_string();
    assert!(sent.contains("A question with a clean slate"), "{sent}");
    assert!(!sent.contains("The first question"), "{sent}");
    let after = threads(&workspace);
    assert_eq!(after.len(), 1, "{after:?}");
    assert_ne!(after[0].0, before[0].0);
}
