//! The SSE and reply parsers never panic, whatever the endpoint sends; well-formed fixtures parse.

use bytes::Bytes;
use hailer_model::{ModelEvent, Redactor, WireApi, endpoint_words};
use hailer_model::{events_from_json, events_from_sse};
use proptest::prelude::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

const WIRES: [WireApi; 2] = [WireApi::Responses, WireApi::Chat];

/// Plausible event lines, so the generator reaches deep into the parsers.
fn event_line() -> impl Strategy<Value = String> {
    let kinds = prop_oneof![
        Just("response.output_text.delta"),
        Just("response.output_item.added"),
        Just("response.output_item.done"),
        Just("response.completed"),
        Just("response.failed"),
        Just("error"),
    ];
    let values = prop_oneof![
        Just("null".to_owned()),
        Just("\"text\"".to_owned()),
        Just("42".to_owned()),
        Just("{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"n\"}".to_owned()),
        Just("[{\"index\":99999999999,\"id\":\"x\",\"function\":{\"name\":\"f\"}}]".to_owned()),
        Just("{\"status\":\"failed\"}".to_owned()),
        any::<String>().prop_map(|text| serde_json::to_string(&text).unwrap_or_default()),
    ];
    let fields = prop_oneof![
        Just("delta"),
        Just("item"),
        Just("response"),
        Just("choices"),
        Just("usage"),
        Just("error"),
        Just("tool_calls"),
    ];
    (kinds, proptest::collection::vec((fields, values), 0..4)).prop_map(|(kind, pairs)| {
        let body: Vec<String> = pairs
            .into_iter()
            .map(|(field, value)| format!("\"{field}\":{value}"))
            .collect();
        format!("data: {{\"type\":\"{kind}\",{}}}\n\n", body.join(",")).replace(",}", "}")
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic_the_stream_parsers(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..16)
    ) {
        let runtime = runtime();
        for wire in WIRES {
            let chunks: Vec<Bytes> = chunks.iter().cloned().map(Bytes::from).collect();
            let events = runtime.block_on(events_from_sse(wire, chunks));
            // Whatever happened, an incomplete stream never ends in success.
            let completed = events.iter().any(|event| matches!(event, Ok(ModelEvent::Completed(_))));
            let failed = events.last().is_some_and(Result::is_err);
            prop_assert!(completed || failed, "{events:?}");
        }
    }

    #[test]
    fn plausible_events_never_panic_the_stream_parsers(
        lines in proptest::collection::vec(event_line(), 0..12),
        done in any::<bool>(),
    ) {
        let runtime = runtime();
        let mut text = lines.concat();
        if done {
            text.push_str("data: [DONE]\n\n");
        }
        for wire in WIRES {
            let events = runtime.block_on(events_from_sse(wire, vec![Bytes::from(text.clone())]));
            let errors = events.iter().filter(|event| event.is_err()).count();
            prop_assert!(errors <= 1);
        }
    }

    #[test]
    fn arbitrary_bodies_never_panic_the_whole_reply_parsers(body in any::<Vec<u8>>()) {
        for wire in WIRES {
            let _ = events_from_json(wire, &body);
        }
    }

    #[test]
    fn arbitrary_json_never_panics_the_whole_reply_parsers(text in "[\\[\\]{}\":,a-z0-9 ]{0,80}") {
        for wire in WIRES {
            let _ = events_from_json(wire, text.as_bytes());
        }
        let _ = endpoint_words(&text);
    }

    #[test]
    fn redaction_removes_the_secret_wherever_it_is(
        prefix in ".{0,40}", suffix in ".{0,40}", secret in "[A-Za-z0-9]{8,40}"
    ) {
        let redactor = Redactor::new([secret.clone()]);
        let clean = redactor.redact(&format!("{prefix}{secret}{suffix}")).into_owned();
        prop_assert!(!clean.contains(&secret));
    }
}

#[tokio::test]
async fn a_recorded_responses_stream_parses_into_events() {
    let body = concat!(
        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{}}\n\n",
        ": keep-alive comment\n\n",
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hel\"}\n\n",
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"lo\"}\n\n",
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",",
        "\"output\":[],\"usage\":{\"input_tokens\":3,\"output_tokens\":2,\"total_tokens\":5}}}\n\n",
    );
    // Split mid-line to check reassembly across chunks.
    let (first, second) = body.split_at(150);
    let events = events_from_sse(
        WireApi::Responses,
        vec![
            Bytes::from(first.to_owned()),
            Bytes::from(second.to_owned()),
        ],
    )
    .await;
    let events: Vec<ModelEvent> = events.into_iter().map(Result::unwrap).collect();
    assert_eq!(events[0], ModelEvent::TextDelta("Hel".to_owned()));
    assert_eq!(events[1], ModelEvent::TextDelta("lo".to_owned()));
    let Some(ModelEvent::Completed(completion)) = events.last() else {
        panic!("{events:?}");
    };
    assert_eq!(completion.text, "Hello");
    assert_eq!(completion.usage.map(|usage| usage.total), Some(Some(5)));
}

#[tokio::test]
async fn a_failed_response_event_becomes_a_clear_error() {
    let body = "data: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}\n\n";
    let events = events_from_sse(WireApi::Responses, vec![Bytes::from(body)]).await;
    let error = events.last().unwrap().as_ref().unwrap_err();
    assert_eq!(
        error.to_string(),
        "The model endpoint reported a failure while answering. The endpoint said: boom (server_error)"
    );
}

#[tokio::test]
async fn chat_done_without_a_finish_reason_is_incomplete() {
    let body =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
    let events = events_from_sse(WireApi::Chat, vec![Bytes::from(body)]).await;
    assert_eq!(
        events[0].as_ref().unwrap(),
        &ModelEvent::TextDelta("Hi".to_owned())
    );
    assert!(
        events
            .last()
            .unwrap()
            .as_ref()
            .unwrap_err()
            .to_string()
            .contains("broke off"),
        "{events:?}"
    );
}

/// The tool calls of a streamed Chat reply: the ids they started under, and each finished call's
/// id with its arguments.
async fn chat_tool_calls(body: &'static str) -> (Vec<String>, Vec<(String, String)>) {
    let events = events_from_sse(WireApi::Chat, vec![Bytes::from(body)]).await;
    let mut started = Vec::new();
    let mut done = Vec::new();
    for event in events.into_iter().map(Result::unwrap) {
        match event {
            ModelEvent::ToolCallStarted { call_id, .. } => started.push(call_id),
            ModelEvent::ToolCallDone {
                call_id, arguments, ..
            } => done.push((call_id, arguments)),
            _ => {}
        }
    }
    (started, done)
}

#[tokio::test]
async fn a_chat_tool_call_whose_name_comes_before_its_id_starts_once_under_its_id() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
        "\"function\":{\"name\":\"marimo_execute\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
        "\"id\":\"call_real\",\"function\":{\"arguments\":\"{\\\"code\\\":\\\"1\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (started, done) = chat_tool_calls(body).await;
    assert_eq!(started, ["call_real"]);
    assert_eq!(
        done,
        [("call_real".to_owned(), "{\"code\":\"1\"}".to_owned())]
    );
}

#[tokio::test]
async fn a_chat_tool_call_without_an_id_starts_once_under_a_stand_in() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,",
        "\"function\":{\"name\":\"marimo_execute\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (started, done) = chat_tool_calls(body).await;
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!(started[0], done[0].0, "started and finished under one id");
}
