//! Shared helpers: settings pointing at a scripted server, fast retry options, event collection.

use std::time::Duration;

use hailer_model::{
    ClientOptions, ModelClient, ModelError, ModelEvent, ModelEvents, ModelRequest,
    ProviderSettings, RetryPolicy, Timeouts, ToolSpec, WireApi,
};
use hailer_scripted_model::{Script, ScriptedModel};
use secrecy::SecretString;
use serde_json::json;

/// A key shaped like a real one, so both literal and pattern redaction are exercised.
pub(super) const KEY: &str = "sk-test-4f9c2a7b1e8d6c3a5b0e9f1d";

/// Every combination the client supports.
pub(super) const MODES: [(WireApi, bool); 4] = [
    (WireApi::Responses, true),
    (WireApi::Responses, false),
    (WireApi::Chat, true),
    (WireApi::Chat, false),
];

pub(super) fn settings(server: &ScriptedModel, wire: WireApi, stream: bool) -> ProviderSettings {
    let mut settings = ProviderSettings::new("scripted", server.base_url(), wire, "test-model");
    settings.stream = stream;
    settings.api_key = Some(SecretString::from(KEY));
    settings.env_key = Some("SCRIPTED_API_KEY".to_owned());
    settings
}

/// Quick retries so fault tests stay fast.
pub(super) fn fast_options() -> ClientOptions {
    ClientOptions {
        retry: RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            retry_after_cap: Duration::from_secs(3),
        },
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            response: Duration::from_secs(10),
            stream_idle: Duration::from_secs(5),
        },
    }
}

pub(super) fn client(settings: ProviderSettings) -> ModelClient {
    ModelClient::new(settings, fast_options()).expect("valid settings")
}

pub(super) async fn start(script: Script) -> ScriptedModel {
    ScriptedModel::start(script)
        .await
        .expect("the scripted server starts")
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "marimo_execute".to_owned(),
        description: "Runs Python in the active notebook.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"code": {"type": "string"}},
            "required": ["code"],
        }),
    }]
}

pub(super) fn request(items: Vec<hailer_model::Item>) -> ModelRequest {
    ModelRequest {
        instructions: "You are a careful analyst.".to_owned(),
        items,
        tools: tools(),
        reasoning_effort: None,
    }
}

/// All events of a call, and its error if it failed.
pub(super) async fn collect(mut events: ModelEvents) -> (Vec<ModelEvent>, Option<ModelError>) {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        match event {
            Ok(event) => seen.push(event),
            Err(error) => {
                assert!(
                    events.recv().await.is_none(),
                    "an error must be the last item"
                );
                return (seen, Some(error));
            }
        }
    }
    (seen, None)
}

/// The error of a call that must fail.
pub(super) async fn failure(client: &ModelClient, request: &ModelRequest) -> ModelError {
    match collect(client.stream(request)).await {
        (_, Some(error)) => error,
        (events, None) => panic!("the call succeeded unexpectedly: {events:?}"),
    }
}

pub(super) fn label(wire: WireApi, stream: bool) -> String {
    format!("{wire} stream={stream}")
}
