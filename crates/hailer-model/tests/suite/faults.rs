//! Each injected fault yields its user message, with exactly the allowed retries and no others.

use std::time::{Duration, Instant};

use hailer_model::{
    ClientOptions, Item, ModelClient, ModelError, ModelEvent, RetryPolicy, Timeouts, WireApi,
};
use hailer_scripted_model::{Fault, Reply, Script};
use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{
    MODES, client, collect, failure, fast_options, label, request, settings, start,
};

fn hello() -> hailer_model::ModelRequest {
    request(vec![Item::user("hello")])
}

/// Runs one call against a server playing `script` in every mode; checks the number of requests
/// the server saw and hands the error to `check`.
async fn each_mode_fails(script: Script, requests: usize, check: impl Fn(&str, &ModelError)) {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(script.clone()).await;
        let error = failure(&client(settings(&server, wire, stream)), &hello()).await;
        check(&mode, &error);
        assert_eq!(
            server.requests().len(),
            requests,
            "{mode}: requests sent for {error:?}"
        );
    }
}

#[tokio::test]
async fn unauthorized_says_how_to_set_the_key_and_is_not_retried() {
    let script = Script::new().fault(Fault::status(401).message("Incorrect API key provided."));
    each_mode_fails(script, 1, |mode, error| {
        assert!(
            matches!(error, ModelError::Unauthorized { .. }),
            "{mode}: {error:?}"
        );
        let text = error.to_string();
        assert!(text.contains("SCRIPTED_API_KEY"), "{mode}: {text}");
        assert!(text.contains("hailer login scripted"), "{mode}: {text}");
        assert!(
            text.contains("The endpoint said: Incorrect API key provided."),
            "{mode}: {text}"
        );
        assert!(!error.is_retryable());
    })
    .await;
}

#[tokio::test]
async fn unknown_model_names_the_model_and_provider() {
    let script = Script::new().fault(
        Fault::status(404)
            .message("The model `test-model` does not exist or you do not have access to it.")
            .code("model_not_found"),
    );
    each_mode_fails(script, 1, |mode, error| {
        assert!(
            matches!(error, ModelError::UnknownModel { .. }),
            "{mode}: {error:?}"
        );
        let text = error.to_string();
        assert!(
            text.starts_with("Unknown model 'test-model' for provider 'scripted'."),
            "{text}"
        );
        assert!(text.contains("(model_not_found)"), "{mode}: {text}");
    })
    .await;
}

#[tokio::test]
async fn not_found_suggests_the_other_wire_api() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().fail(404)).await;
        let error = failure(&client(settings(&server, wire, stream)), &hello()).await;
        let text = error.to_string();
        assert!(
            matches!(error, ModelError::EndpointNotFound { .. }),
            "{mode}: {error:?}"
        );
        assert!(
            text.contains(&format!("POST /v1/{}", wire.path())),
            "{mode}: {text}"
        );
        assert!(
            text.contains(&format!("wire_api = \"{}\"", wire.other())),
            "{mode}: {text}"
        );
        assert_eq!(server.requests().len(), 1, "{mode}");
    }
}

#[tokio::test]
async fn forbidden_and_other_rejections_are_sent_once() {
    each_mode_fails(Script::new().fail(403), 1, |mode, error| {
        assert!(
            matches!(error, ModelError::Forbidden { .. }),
            "{mode}: {error:?}"
        );
    })
    .await;
    let script = Script::new().fail_with(
        422,
        "Unrecognized request argument supplied: stream_options",
    );
    each_mode_fails(script, 1, |mode, error| {
        assert!(
            matches!(error, ModelError::Rejected { status: 422, .. }),
            "{mode}: {error:?}"
        );
        // Only what was sent is named: stream_options goes with streamed Chat requests only,
        // and no reasoning effort was set.
        let text = error.to_string();
        let streamed_chat = mode.starts_with("chat stream=true");
        assert_eq!(
            text.contains("stream_options = true"),
            streamed_chat,
            "{mode}: {text}"
        );
        assert_eq!(
            text.contains("stream = true"),
            mode.ends_with("stream=true"),
            "{mode}: {text}"
        );
        assert!(!text.contains("reasoning_effort"), "{mode}: {text}");
        assert!(
            text.contains("Unrecognized request argument"),
            "{mode}: {text}"
        );
    })
    .await;
}

#[tokio::test]
async fn context_overflow_says_to_start_a_new_conversation() {
    let script = Script::new().fault(
        Fault::status(400)
            .message("This model's maximum context length is 128000 tokens.")
            .code("context_length_exceeded"),
    );
    each_mode_fails(script, 1, |mode, error| {
        assert!(
            matches!(error, ModelError::ContextTooLong { .. }),
            "{mode}: {error:?}"
        );
        assert!(error.to_string().contains("/new"), "{mode}");
    })
    .await;
}

#[tokio::test]
async fn rate_limit_then_success_is_retried_once() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().fail(429).reply_text("finally")).await;
        let completion = client(settings(&server, wire, stream))
            .complete(&hello())
            .await
            .unwrap_or_else(|error| panic!("{mode}: {error}"));
        assert_eq!(completion.text, "finally", "{mode}");
        assert_eq!(server.requests().len(), 2, "{mode}");
    }
}

#[tokio::test]
async fn persistent_rate_limits_and_server_errors_give_up_after_the_retries() {
    let script = Script::new()
        .fail(429)
        .fail(429)
        .fail(429)
        .reply_text("unreached");
    each_mode_fails(script, 3, |mode, error| {
        assert!(
            matches!(error, ModelError::RateLimited { attempts: 3, .. }),
            "{mode}: {error:?}"
        );
        assert!(error.is_retryable());
        assert!(
            error.to_string().contains("Rate limit reached"),
            "{mode}: {error}"
        );
    })
    .await;
    let script = Script::new()
        .fail(500)
        .fail(502)
        .fail(503)
        .reply_text("unreached");
    each_mode_fails(script, 3, |mode, error| {
        assert!(
            matches!(
                error,
                ModelError::Unavailable {
                    status: 503,
                    attempts: 3,
                    ..
                }
            ),
            "{mode}: {error:?}"
        );
        assert!(error.is_retryable());
    })
    .await;
}

#[tokio::test]
async fn no_retries_when_the_policy_allows_none() {
    let server = start(Script::new().fail(500).reply_text("unreached")).await;
    let options = ClientOptions {
        retry: RetryPolicy::none(),
        ..fast_options()
    };
    let client = ModelClient::new(settings(&server, WireApi::Chat, true), options).unwrap();
    let error = failure(&client, &hello()).await;
    assert!(
        matches!(error, ModelError::Unavailable { attempts: 1, .. }),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retry_after_is_honoured_up_to_the_cap() {
    let server = start(
        Script::new()
            .fault(Fault::status(429).retry_after(1))
            .reply_text("waited"),
    )
    .await;
    let started = Instant::now();
    client(settings(&server, WireApi::Responses, true))
        .complete(&hello())
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );

    let server = start(
        Script::new()
            .fault(Fault::status(503).retry_after(3600))
            .reply_text("capped"),
    )
    .await;
    let options = ClientOptions {
        retry: RetryPolicy {
            retry_after_cap: Duration::from_millis(50),
            ..fast_options().retry
        },
        ..fast_options()
    };
    let started = Instant::now();
    let client = ModelClient::new(settings(&server, WireApi::Chat, false), options).unwrap();
    assert_eq!(client.complete(&hello()).await.unwrap().text, "capped");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_refused_connection_names_the_base_url_after_the_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let mut provider =
        hailer_model::ProviderSettings::new("local", base_url.clone(), WireApi::Chat, "m");
    provider.stream = false;
    let error = failure(&client(provider), &hello()).await;
    assert!(
        matches!(error, ModelError::Connection { attempts: 3, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.contains(&base_url), "{text}");
    assert!(text.contains("HTTPS_PROXY"), "{text}");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_stream_cut_after_a_tool_call_began_is_an_error_and_not_retried() {
    let script = Script::new()
        .reply(
            Reply::text("Running it.")
                .with_tool_call("marimo_execute", json!({"code": "1/0"}))
                .cut_after_tool_call_started(),
        )
        .reply_text("must not be used");
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(script.clone()).await;
        let (events, error) =
            collect(client(settings(&server, wire, stream)).stream(&hello())).await;
        let error = error.unwrap_or_else(|| panic!("{mode}: no error after {events:?}"));
        assert!(
            matches!(error, ModelError::StreamInterrupted { .. }),
            "{mode}: {error:?}"
        );
        assert!(
            error.to_string().contains("not sent again"),
            "{mode}: {error}"
        );
        assert!(
            !events
                .iter()
                .any(|event| matches!(event, ModelEvent::Completed(_))),
            "{mode}"
        );
        if stream {
            assert!(
                events
                    .iter()
                    .any(|event| matches!(event, ModelEvent::ToolCallStarted { .. })),
                "{mode}: {events:?}"
            );
        }
        assert_eq!(server.requests().len(), 1, "{mode}: never replayed");
        assert_eq!(server.remaining_steps(), 1, "{mode}");
    }
}

#[tokio::test]
async fn a_stream_that_ends_early_or_is_cut_is_an_error() {
    for reply in [
        Reply::text("one two three")
            .in_deltas(3)
            .end_early_after_deltas(2),
        Reply::text("one two three")
            .in_deltas(3)
            .cut_after_deltas(1),
    ] {
        let script = Script::new().reply(reply).reply_text("must not be used");
        each_mode_fails(script, 1, |mode, error| {
            assert!(
                matches!(error, ModelError::StreamInterrupted { .. }),
                "{mode}: {error:?}"
            );
        })
        .await;
    }
}

#[tokio::test]
async fn a_stalled_stream_times_out_and_is_not_retried() {
    let options = ClientOptions {
        timeouts: Timeouts {
            stream_idle: Duration::from_millis(300),
            response: Duration::from_millis(600),
            ..fast_options().timeouts
        },
        ..fast_options()
    };
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let reply = Reply::text("slow answer")
            .in_deltas(2)
            .stall_after_deltas(1, Duration::from_secs(5));
        let server = start(Script::new().reply(reply).reply_text("unused")).await;
        let client = ModelClient::new(settings(&server, wire, stream), options.clone()).unwrap();
        let started = Instant::now();
        let error = failure(&client, &hello()).await;
        assert!(
            matches!(error, ModelError::Timeout { .. }),
            "{mode}: {error:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{mode}: {:?}",
            started.elapsed()
        );
        assert_eq!(server.requests().len(), 1, "{mode}");
    }
}

#[tokio::test]
async fn no_response_headers_in_time_is_a_timeout_sent_once() {
    let options = ClientOptions {
        timeouts: Timeouts {
            response: Duration::from_millis(300),
            ..fast_options().timeouts
        },
        ..fast_options()
    };
    let reply = Reply::text("late").delay_headers(Duration::from_secs(5));
    let server = start(Script::new().reply(reply).reply_text("unused")).await;
    let client = ModelClient::new(settings(&server, WireApi::Responses, true), options).unwrap();
    let error = failure(&client, &hello()).await;
    assert!(matches!(error, ModelError::Timeout { .. }), "{error:?}");
    assert!(
        error.to_string().contains("did not answer in time"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1);
}

/// The response window covers the headers and a whole reply's body together: headers late in the
/// window leave only the rest of it for the body.
#[tokio::test]
async fn a_whole_reply_must_arrive_within_one_response_window_headers_included() {
    let options = ClientOptions {
        timeouts: Timeouts {
            response: Duration::from_millis(700),
            ..fast_options().timeouts
        },
        ..fast_options()
    };
    for wire in [WireApi::Responses, WireApi::Chat] {
        // Headers at 450 ms and the body 450 ms later: each within the window, both not.
        let reply = Reply::text("late")
            .delay_headers(Duration::from_millis(450))
            .stall_after_deltas(0, Duration::from_millis(450));
        let server = start(Script::new().reply(reply).reply_text("unused")).await;
        let client = ModelClient::new(settings(&server, wire, false), options.clone()).unwrap();
        let error = failure(&client, &hello()).await;
        assert!(
            matches!(error, ModelError::Timeout { .. }),
            "{wire:?}: {error:?}"
        );
        assert_eq!(server.requests().len(), 1, "{wire:?}");
    }
    // The same reply with a window that holds both arrives.
    let options = ClientOptions {
        timeouts: Timeouts {
            response: Duration::from_secs(5),
            ..fast_options().timeouts
        },
        ..fast_options()
    };
    let reply = Reply::text("late")
        .delay_headers(Duration::from_millis(450))
        .stall_after_deltas(0, Duration::from_millis(450));
    let server = start(Script::new().reply(reply)).await;
    let client = ModelClient::new(settings(&server, WireApi::Chat, false), options).unwrap();
    let completion = client.complete(&hello()).await.unwrap();
    assert_eq!(completion.text, "late");
}

#[tokio::test]
async fn endpoint_errors_that_are_not_json_are_quoted_and_capped() {
    let page = format!("<html><body>Bad gateway {}</body></html>", "x".repeat(2000));
    let script = Script::new().fault(Fault::status(400).raw_body(page));
    each_mode_fails(script, 1, |mode, error| {
        let text = error.to_string();
        let said = text.split("The endpoint said: ").nth(1).unwrap_or_default();
        assert!(
            said.starts_with("<html><body>Bad gateway"),
            "{mode}: {text}"
        );
        assert_eq!(said.chars().count(), hailer_model::MAX_SAID_CHARS, "{mode}");
    })
    .await;
}

#[tokio::test]
async fn invalid_settings_are_reported_before_any_request() {
    let mut provider =
        hailer_model::ProviderSettings::new("broken", "not a url", WireApi::Chat, "m");
    let error = ModelClient::new(provider.clone(), fast_options()).unwrap_err();
    assert!(
        error.to_string().contains("base_url 'not a url'"),
        "{error}"
    );
    provider.base_url = "http://127.0.0.1:9/v1".to_owned();
    provider
        .http_headers
        .insert("bad header".to_owned(), "v".to_owned());
    let error = ModelClient::new(provider, fast_options()).unwrap_err();
    assert!(error.to_string().contains("'bad header'"), "{error}");
}
