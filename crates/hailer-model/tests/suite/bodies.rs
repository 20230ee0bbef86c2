//! The request bodies hold exactly the allowed keys; headers and query parameters go out as
//! configured; histories a strict endpoint rejects are rejected by the scripted one too.

use std::collections::BTreeSet;

use hailer_model::{Item, ModelError, ReasoningEffort, ToolCall, WireApi};
use hailer_scripted_model::Script;
use pretty_assertions::assert_eq;
use secrecy::SecretString;
use serde_json::json;

use super::support::{KEY, MODES, client, failure, label, request, settings, start};

fn keys(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn allowed_keys(
    wire: WireApi,
    stream: bool,
    stream_options: bool,
    effort: bool,
) -> BTreeSet<String> {
    let mut allowed = match wire {
        WireApi::Responses => keys(&["model", "input", "tools", "stream"]),
        WireApi::Chat => keys(&["model", "messages", "tools", "stream"]),
    };
    if wire == WireApi::Chat && stream && stream_options {
        allowed.insert("stream_options".to_owned());
    }
    if effort {
        let key = match wire {
            WireApi::Responses => "reasoning",
            WireApi::Chat => "reasoning_effort",
        };
        allowed.insert(key.to_owned());
    }
    allowed
}

#[tokio::test]
async fn bodies_hold_exactly_the_allowed_keys() {
    for (wire, stream) in MODES {
        for stream_options in [true, false] {
            for effort in [None, Some(ReasoningEffort::High)] {
                let mode = format!(
                    "{} stream_options={stream_options} effort={effort:?}",
                    label(wire, stream)
                );
                let server = start(Script::new().reply_text("ok")).await;
                let mut provider = settings(&server, wire, stream);
                provider.stream_options = stream_options;
                let mut call = request(vec![Item::user("hello")]);
                call.reasoning_effort = effort;
                client(provider).complete(&call).await.unwrap();

                let body = server.requests()[0].body.clone();
                let expected = allowed_keys(wire, stream, stream_options, effort.is_some());
                assert_eq!(server.requests()[0].body_keys(), expected, "{mode}");
                assert_eq!(body["model"], json!("test-model"), "{mode}");
                assert_eq!(body["stream"], json!(stream), "{mode}");
                if expected.contains("stream_options") {
                    assert_eq!(
                        body["stream_options"],
                        json!({"include_usage": true}),
                        "{mode}"
                    );
                }
                match (wire, effort) {
                    (WireApi::Responses, Some(_)) => {
                        assert_eq!(body["reasoning"], json!({"effort": "high"}), "{mode}");
                    }
                    (WireApi::Chat, Some(_)) => {
                        assert_eq!(body["reasoning_effort"], json!("high"), "{mode}");
                    }
                    (_, None) => {}
                }
            }
        }
    }
}

#[tokio::test]
async fn tools_are_plain_function_tools_and_omitted_when_there_are_none() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply_text("a").reply_text("b")).await;
        let client = client(settings(&server, wire, stream));
        client
            .complete(&request(vec![Item::user("x")]))
            .await
            .unwrap();
        let mut bare = request(vec![Item::user("summarise")]);
        bare.tools.clear();
        client.complete(&bare).await.unwrap();

        let requests = server.requests();
        let tool = requests[0].body["tools"][0].clone();
        let parameters = json!({"type": "object", "properties": {"code": {"type": "string"}},
                                "required": ["code"]});
        let expected = match wire {
            WireApi::Responses => json!({"type": "function", "name": "marimo_execute",
                "description": "Runs Python in the active notebook.",
                "parameters": parameters, "strict": false}),
            WireApi::Chat => json!({"type": "function", "function": {"name": "marimo_execute",
                "description": "Runs Python in the active notebook.", "parameters": parameters}}),
        };
        assert_eq!(tool, expected, "{mode}");
        assert!(!requests[1].body_keys().contains("tools"), "{mode}");
    }
}

#[tokio::test]
async fn headers_and_query_parameters_are_sent_as_configured() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply_text("ok")).await;
        let mut provider = settings(&server, wire, stream);
        provider
            .http_headers
            .insert("X-Team".to_owned(), "analytics".to_owned());
        provider.env_http_headers.insert(
            "X-Gateway-Token".to_owned(),
            SecretString::from("gateway-secret-1"),
        );
        provider
            .env_http_headers
            .insert("X-Empty".to_owned(), SecretString::from(""));
        provider
            .query_params
            .insert("api-version".to_owned(), "2025-01-01".to_owned());
        client(provider)
            .complete(&request(vec![Item::user("x")]))
            .await
            .unwrap();

        let sent = &server.requests()[0];
        assert_eq!(sent.bearer_token(), Some(KEY), "{mode}");
        assert_eq!(sent.header("x-team"), Some("analytics"), "{mode}");
        assert_eq!(
            sent.header("x-gateway-token"),
            Some("gateway-secret-1"),
            "{mode}"
        );
        assert_eq!(
            sent.header("x-empty"),
            None,
            "{mode}: empty values are not sent"
        );
        assert_eq!(
            sent.query.as_deref(),
            Some("api-version=2025-01-01"),
            "{mode}"
        );
        assert_eq!(
            sent.header("content-type"),
            Some("application/json"),
            "{mode}"
        );
        let accept = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        assert_eq!(sent.header("accept"), Some(accept), "{mode}");
    }
}

#[tokio::test]
async fn no_authorization_header_without_a_key() {
    let server = start(Script::new().reply_text("ok")).await;
    let mut provider = settings(&server, WireApi::Chat, true);
    provider.api_key = None;
    client(provider)
        .complete(&request(vec![Item::user("x")]))
        .await
        .unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}

fn dangling_call() -> ToolCall {
    ToolCall {
        call_id: "call_lost".to_owned(),
        name: "marimo_execute".to_owned(),
        arguments: "{}".to_owned(),
    }
}

#[tokio::test]
async fn histories_strict_endpoints_refuse_get_a_400() {
    let histories = [
        (
            "dangling tool call",
            vec![
                Item::user("a"),
                Item::assistant("", vec![dangling_call()]),
                Item::user("b"),
            ],
            "call_lost",
        ),
        (
            "result without call",
            vec![Item::user("a"), Item::tool_result("call_ghost", "out")],
            "call_ghost",
        ),
        (
            "two user messages",
            vec![Item::user("a"), Item::user("b")],
            "Two user messages",
        ),
    ];
    for (wire, stream) in MODES {
        for (what, history, words) in &histories {
            let mode = format!("{} {what}", label(wire, stream));
            let server = start(Script::new().reply_text("never sent")).await;
            let error = failure(
                &client(settings(&server, wire, stream)),
                &request(history.clone()),
            )
            .await;
            assert!(
                matches!(error, ModelError::Rejected { status: 400, .. }),
                "{mode}: {error:?}"
            );
            assert!(error.to_string().contains(words), "{mode}: {error}");
            assert_eq!(server.requests().len(), 1, "{mode}: a 400 is not retried");
            assert_eq!(server.remaining_steps(), 1, "{mode}");
        }
    }
}
