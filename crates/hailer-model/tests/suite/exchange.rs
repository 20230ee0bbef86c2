//! A two-step exchange in every mode: a tool call, its result sent back, then the final text.

use hailer_model::{Completion, Item, ModelEvent, ToolCall, Usage, WireApi};
use hailer_scripted_model::{Reply, Script};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::support::{MODES, client, collect, label, request, settings, start};

const ANSWER: &str = "Revenue dropped 12% in March, driven by the north region.";

#[tokio::test]
async fn tool_call_then_result_then_text_in_every_mode() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let script = Script::new()
            .reply(Reply::tool_call("marimo_execute", json!({"code": "print(1)"})).usage(120, 30))
            .reply(Reply::text(ANSWER).in_deltas(4).usage(200, 15));
        let server = start(script).await;
        let client = client(settings(&server, wire, stream));

        // Step 1: the model asks for a tool call.
        let history = vec![Item::user("What drove the drop in March?")];
        let (events, error) = collect(client.stream(&request(history.clone()))).await;
        assert_eq!(error, None, "{mode}");
        let Some(ModelEvent::Completed(first)) = events.last().cloned() else {
            panic!("{mode}: the last event must be Completed: {events:?}");
        };
        assert_eq!(first.text, "", "{mode}");
        assert_eq!(first.tool_calls.len(), 1, "{mode}");
        let call = first.tool_calls[0].clone();
        assert_eq!(call.name, "marimo_execute", "{mode}");
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
        assert_eq!(arguments, json!({"code": "print(1)"}), "{mode}");
        let started = events
            .iter()
            .position(|event| matches!(event, ModelEvent::ToolCallStarted { .. }));
        let done = events
            .iter()
            .position(|event| matches!(event, ModelEvent::ToolCallDone { .. }));
        assert!(started < done, "{mode}: started before done: {events:?}");
        assert_eq!(
            events.get(done.unwrap()),
            Some(&ModelEvent::ToolCallDone {
                call_id: call.call_id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            }),
            "{mode}"
        );
        assert_eq!(
            first.usage,
            Some(Usage {
                input: 120,
                output: 30,
                total: Some(150)
            }),
            "{mode}"
        );

        // Step 2: the result goes back and the model answers in text.
        let mut history = history;
        history.push(Item::assistant("", first.tool_calls.clone()));
        history.push(Item::tool_result(&call.call_id, "1\n"));
        let (events, error) = collect(client.stream(&request(history))).await;
        assert_eq!(error, None, "{mode}");
        let deltas: Vec<&str> = events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::TextDelta(delta) => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas.concat(), ANSWER, "{mode}: deltas in order");
        let expected_deltas = if stream { 4 } else { 1 };
        assert_eq!(deltas.len(), expected_deltas, "{mode}");
        let last_delta = events
            .iter()
            .rposition(|event| matches!(event, ModelEvent::TextDelta(_)));
        assert!(last_delta < Some(events.len() - 1), "{mode}");
        assert_eq!(
            events.last(),
            Some(&ModelEvent::Completed(Completion {
                text: ANSWER.to_owned(),
                tool_calls: vec![],
                usage: Some(Usage {
                    input: 200,
                    output: 15,
                    total: Some(215)
                }),
            })),
            "{mode}"
        );

        // The tool result was sent back under the call's id.
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{mode}");
        let sent = requests[1].conversation();
        let (call_item, result_item) = match wire {
            WireApi::Responses => (
                json!({"type": "function_call", "call_id": call.call_id,
                       "name": "marimo_execute", "arguments": call.arguments}),
                json!({"type": "function_call_output", "call_id": call.call_id, "output": "1\n"}),
            ),
            WireApi::Chat => (
                json!({"role": "assistant", "content": null, "tool_calls": [{
                    "id": call.call_id, "type": "function",
                    "function": {"name": "marimo_execute", "arguments": call.arguments}}]}),
                json!({"role": "tool", "tool_call_id": call.call_id, "content": "1\n"}),
            ),
        };
        assert_eq!(sent.len(), 4, "{mode}: system, user, call, result");
        assert_eq!(
            sent[0],
            json!({"role": "system", "content": "You are a careful analyst."})
        );
        assert_eq!(
            sent[1],
            json!({"role": "user", "content": "What drove the drop in March?"})
        );
        assert_eq!(sent[2], call_item, "{mode}");
        assert_eq!(sent[3], result_item, "{mode}");
    }
}

#[tokio::test]
async fn text_and_several_tool_calls_in_one_reply() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let reply = Reply::text("Let me look.")
            .with_tool_call_id("call_a", "notebook_cells", json!({"pattern": ""}))
            .with_tool_call_id("call_b", "marimo_status", json!({}));
        let server = start(Script::new().reply(reply)).await;
        let client = client(settings(&server, wire, stream));
        let completion = client
            .complete(&request(vec![Item::user("Show me the cells.")]))
            .await
            .unwrap_or_else(|error| panic!("{mode}: {error}"));
        assert_eq!(completion.text, "Let me look.", "{mode}");
        let calls: Vec<ToolCall> = completion.tool_calls;
        let ids: Vec<&str> = calls.iter().map(|call| call.call_id.as_str()).collect();
        assert_eq!(ids, ["call_a", "call_b"], "{mode}");
        assert_eq!(calls[1].arguments, "{}", "{mode}");
    }
}

#[tokio::test]
async fn usage_is_unknown_when_the_endpoint_reports_none() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply(Reply::text("Hi.").no_usage())).await;
        let client = client(settings(&server, wire, stream));
        let (events, error) = collect(client.stream(&request(vec![Item::user("Hi")]))).await;
        assert_eq!(error, None, "{mode}");
        assert!(
            !events
                .iter()
                .any(|event| matches!(event, ModelEvent::Usage(_))),
            "{mode}: {events:?}"
        );
        let Some(ModelEvent::Completed(completion)) = events.last() else {
            panic!("{mode}: no completion");
        };
        assert_eq!(completion.usage, None, "{mode}: unknown, not zero");
    }
}

#[tokio::test]
async fn streamed_chat_without_stream_options_gets_no_usage() {
    let server = start(Script::new().reply_text("Hi.")).await;
    let mut chat = settings(&server, WireApi::Chat, true);
    chat.stream_options = false;
    let completion = client(chat)
        .complete(&request(vec![Item::user("Hi")]))
        .await
        .unwrap();
    assert_eq!(completion.usage, None);
    assert_eq!(completion.text, "Hi.");
}

#[tokio::test]
async fn the_server_is_reached_without_the_v1_prefix_too() {
    for (wire, stream) in MODES {
        let server = start(Script::new().reply_text("ok")).await;
        let mut plain = settings(&server, wire, stream);
        plain.base_url = format!("http://{}/", server.addr());
        let completion = client(plain)
            .complete(&request(vec![Item::user("ping")]))
            .await
            .unwrap();
        assert_eq!(completion.text, "ok");
        let path = server.requests()[0].path.clone();
        assert!(!path.starts_with("/v1"), "{path}");
    }
}
