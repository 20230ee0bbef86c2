//! A two-step turn in every mode: a tool call, its result fed back, then the final text streamed.

use hailer_agent::{ThreadItem, TokenUsage, TurnEvent, TurnOutcome, TurnSettings};
use hailer_scripted_model::{Reply, Script};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{
    MODES, Workspace, client, finished_text, label, registry, sent_tool_outputs, sent_user_texts,
    start,
};

const ANSWER: &str = "March fell 12% because the north region lost two large customers.";

#[tokio::test]
async fn tool_call_then_result_then_streamed_answer_in_every_mode() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let script = Script::new()
            .reply(Reply::tool_call("echo", json!({"text": "north"})).usage(120, 30))
            .reply(Reply::text(ANSWER).in_deltas(5).usage(200, 15));
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(
                &client,
                &registry(),
                &TurnSettings::default(),
                "What drove March?",
            )
            .await;

        assert_eq!(finished_text(&outcome), ANSWER, "{mode}");
        let usage = Some(TokenUsage {
            input: 320,
            output: 45,
        });
        assert_eq!(
            outcome,
            TurnOutcome::Finished {
                text: ANSWER.to_owned(),
                usage
            },
            "{mode}"
        );

        // Events: started first, the tool call, deltas in order, finished last.
        assert!(
            matches!(&events[0], TurnEvent::Started { text, .. } if text == "What drove March?"),
            "{mode}: {events:?}"
        );
        let started = events.iter().position(|event| {
            matches!(event, TurnEvent::ToolCallStarted { name, argument_preview, .. }
                if name == "echo" && argument_preview.contains("north"))
        });
        let finished = events.iter().position(|event| {
            matches!(event, TurnEvent::ToolCallFinished { name, ok: true, result_preview, .. }
                if name == "echo" && result_preview == "echo: north")
        });
        assert!(
            started.is_some() && started < finished,
            "{mode}: {events:?}"
        );
        let deltas: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, event)| matches!(event, TurnEvent::TextDelta { .. }))
            .map(|(index, _)| index)
            .collect();
        let text: String = events
            .iter()
            .filter_map(|event| match event {
                TurnEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, ANSWER, "{mode}: the deltas make up the answer");
        if stream {
            assert_eq!(deltas.len(), 5, "{mode}: every delta is forwarded");
        }
        assert!(deltas.iter().all(|index| Some(*index) > finished), "{mode}");
        assert_eq!(
            events.last(),
            Some(&TurnEvent::Finished {
                text: ANSWER.to_owned(),
                usage
            }),
            "{mode}"
        );
        assert_eq!(
            events.iter().filter(|event| event.is_final()).count(),
            1,
            "{mode}"
        );
        assert!(events.contains(&TurnEvent::Usage {
            input: 320,
            output: 45
        }));

        // The model saw the result; the store holds the whole exchange.
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{mode}");
        assert_eq!(sent_tool_outputs(&requests[1]), ["echo: north"], "{mode}");
        assert_eq!(
            sent_user_texts(&requests[1]),
            ["What drove March?"],
            "{mode}"
        );
        let items = workspace.items();
        assert_eq!(items.len(), 4, "{mode}: {items:?}");
        assert!(matches!(&items[0], ThreadItem::User(text) if text == "What drove March?"));
        assert!(
            matches!(&items[1], ThreadItem::Assistant(message) if message.tool_calls.len() == 1)
        );
        assert!(
            matches!(&items[2], ThreadItem::ToolResult(result) if result.output == "echo: north")
        );
        assert!(matches!(&items[3], ThreadItem::Assistant(message) if message.text == ANSWER));
        let thread = workspace.store.thread(&workspace.thread).unwrap().unwrap();
        assert_eq!(
            (thread.turns, thread.input_tokens, thread.output_tokens),
            (1, 320, 45)
        );
    }
}

#[tokio::test]
async fn usage_is_unknown_when_the_endpoint_reports_none() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply(Reply::text("Fine.").no_usage())).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &TurnSettings::default(), "hi")
            .await;
        assert_eq!(
            outcome,
            TurnOutcome::Finished {
                text: "Fine.".to_owned(),
                usage: None
            },
            "{mode}"
        );
        assert!(
            !events
                .iter()
                .any(|event| matches!(event, TurnEvent::Usage { .. })),
            "{mode}: no usage event without usage"
        );
        assert_eq!(hailer_agent::describe_usage(None), "unknown");
    }
}

#[tokio::test]
async fn a_resumed_conversation_sends_the_earlier_turns() {
    let server = start(
        Script::new()
            .reply_text("First answer.")
            .reply_text("Second answer."),
    )
    .await;
    let client = client(&server, hailer_model::WireApi::Chat, true);
    let mut workspace = Workspace::new();
    let settings = TurnSettings::default();
    workspace
        .turn(&client, &registry(), &settings, "first")
        .await;
    // Reopen the store as a restarted daemon would.
    let path = workspace.store.path().to_owned();
    workspace.store = hailer_agent::ConversationStore::open(&path).unwrap();
    let resumed = workspace
        .store
        .resume_or_start("test-model", "scripted")
        .unwrap();
    assert!(
        matches!(resumed, hailer_agent::Resumption::Resumed { turns: 1, .. }),
        "{resumed:?}"
    );
    let (outcome, _) = workspace
        .turn(&client, &registry(), &settings, "second")
        .await;
    assert_eq!(finished_text(&outcome), "Second answer.");
    assert_eq!(sent_user_texts(&server.requests()[1]), ["first", "second"]);
}
