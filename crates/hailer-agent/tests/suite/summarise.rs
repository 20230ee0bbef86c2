//! Summarisation: it starts past the threshold, keeps the last 20 items with every tool pair
//! whole, uses the same endpoint and model, shrinks the next request, and is never shown.

use hailer_agent::check_history as check;
use hailer_agent::{KEEP_RECENT_ITEMS, Summariser, estimate_tokens};
use hailer_agent::{StoredItem, ThreadItem, TurnEvent, TurnSettings};
use hailer_model::{AssistantMessage, ToolCall, ToolResult, WireApi};
use hailer_scripted_model::{RecordedRequest, Script};
use serde_json::Value;

use super::support::{INSTRUCTIONS, Workspace, client, finished_text, registry, start};

const SUMMARY: &str = "SUMMARY-7f3a: the analyst studies March revenue by region.";

/// Ten rounds of question, tool call, long result and answer: 40 items.
fn preload(workspace: &mut Workspace) {
    let thread = workspace.thread.clone();
    for round in 0..10 {
        let call_id = format!("call-{round}");
        let items = [
            ThreadItem::User(format!("question {round}")),
            ThreadItem::Assistant(AssistantMessage {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    call_id: call_id.clone(),
                    name: "echo".into(),
                    arguments: format!("{{\"text\": \"{round}\"}}"),
                }],
            }),
            ThreadItem::ToolResult(ToolResult {
                call_id,
                output: format!("{round}:{}", "r".repeat(1_000)),
            }),
            ThreadItem::Assistant(AssistantMessage {
                text: format!("answer {round}"),
                tool_calls: Vec::new(),
            }),
        ];
        for item in &items {
            workspace.store.append(&thread, item).unwrap();
        }
    }
}

fn settings(after_tokens: u64) -> TurnSettings {
    TurnSettings {
        summariser: Summariser {
            after_tokens,
            ..Summariser::default()
        },
        ..TurnSettings::default()
    }
}

fn system_text(request: &RecordedRequest) -> String {
    request
        .conversation()
        .iter()
        .find(|item| item.get("role").and_then(Value::as_str) == Some("system"))
        .and_then(|item| item.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn body_size(request: &RecordedRequest) -> usize {
    request.body.to_string().len()
}

/// The estimate of the next request once `text` is added.
fn estimate_with(workspace: &Workspace, text: &str) -> u64 {
    let mut items = workspace.store.load_items(&workspace.thread).unwrap();
    items.push(StoredItem {
        seq: 0,
        item: ThreadItem::User(text.to_owned()),
    });
    estimate_tokens(INSTRUCTIONS, &items, None)
}

#[tokio::test]
async fn older_items_are_summarised_past_the_threshold() {
    for wire in [WireApi::Responses, WireApi::Chat] {
        let server = start(Script::new()).await;
        let client = client(&server, wire, true);
        let mut workspace = Workspace::new();
        preload(&mut workspace);

        // Just under the threshold: no summary.
        let below = estimate_with(&workspace, "first");
        server.push(Script::new().reply_text("answer A"));
        let (outcome, _) = workspace
            .turn(&client, &registry(), &settings(below), "first")
            .await;
        assert_eq!(finished_text(&outcome), "answer A", "{wire}");
        assert_eq!(
            server.requests().len(),
            1,
            "{wire}: no summary call at the threshold"
        );
        let full_size = body_size(&server.requests()[0]);
        let before: Vec<ThreadItem> = workspace.items();

        // Past it: a summary call, then the main call.
        let past = estimate_with(&workspace, "second") - 1;
        server.push(Script::new().reply_text(SUMMARY).reply_text("answer B"));
        let (outcome, events) = workspace
            .turn(&client, &registry(), &settings(past), "second")
            .await;
        assert_eq!(finished_text(&outcome), "answer B", "{wire}");
        let requests = server.requests();
        assert_eq!(requests.len(), 3, "{wire}");

        let summary_call = &requests[1];
        assert_eq!(
            summary_call.body["model"], "test-model",
            "{wire}: the same model"
        );
        assert_eq!(
            summary_call.path, requests[0].path,
            "{wire}: the same endpoint"
        );
        assert!(summary_call.body.get("tools").is_none(), "{wire}: no tools");
        assert!(
            system_text(summary_call).contains("data-analysis conversation"),
            "{wire}"
        );

        let main_call = &requests[2];
        assert!(system_text(main_call).starts_with(INSTRUCTIONS), "{wire}");
        assert!(system_text(main_call).contains(SUMMARY), "{wire}");
        assert!(
            body_size(main_call) < full_size,
            "{wire}: the request shrank from {full_size} to {}",
            body_size(main_call)
        );

        // The store: one summary, then the last items of the old history, pairs whole.
        let after = workspace.items();
        assert_eq!(after[0], ThreadItem::Summary(SUMMARY.to_owned()), "{wire}");
        assert_eq!(check(&after), Ok(()), "{wire}");
        // The summary call came after the new question was saved: the last 20 items then
        // (more if a tool pair would have been split) are kept, the question among them.
        let kept = after.len() - 2; // minus the summary and answer B
        assert!(
            (KEEP_RECENT_ITEMS..KEEP_RECENT_ITEMS + 3).contains(&kept),
            "{wire}: kept {kept}"
        );
        let kept_old = kept - 1;
        assert_eq!(
            after[1..=kept_old],
            before[before.len() - kept_old..],
            "{wire}"
        );
        assert!(!matches!(after[1], ThreadItem::ToolResult(_)), "{wire}");

        // Never shown to the user.
        for event in &events {
            assert!(
                !format!("{event:?}").contains("SUMMARY-7f3a"),
                "{wire}: {event:?}"
            );
        }
        assert!(
            !events.iter().any(
                |event| matches!(event, TurnEvent::TextDelta { text } if text.contains("SUMMARY"))
            ),
            "{wire}"
        );

        // A later turn sends the summary again, without re-summarising.
        server.push(Script::new().reply_text("answer C"));
        workspace
            .turn(&client, &registry(), &settings(past), "third")
            .await;
        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{wire}");
        assert!(system_text(&requests[3]).contains(SUMMARY), "{wire}");
    }
}

#[tokio::test]
async fn a_failed_summary_leaves_the_history_and_the_turn_goes_on() {
    let server = start(Script::new().fail(500).reply_text("still answered")).await;
    let client = client(&server, WireApi::Chat, false);
    let mut workspace = Workspace::new();
    preload(&mut workspace);
    let before = workspace.items().len();
    let (outcome, _) = workspace
        .turn(&client, &registry(), &settings(10), "go")
        .await;
    assert_eq!(finished_text(&outcome), "still answered");
    assert_eq!(workspace.items().len(), before + 2);
}
