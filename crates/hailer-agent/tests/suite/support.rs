//! Shared helpers: a scripted server and a client for it, a store in a temporary workspace, fake
//! tools, and an event recorder.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hailer_agent::ConversationStore;
use hailer_agent::{EventSink, Turn, TurnEvent, TurnOutcome, TurnSettings};
use hailer_agent::{Tool, ToolContext, ToolRegistry, tool_error};
use hailer_model::{
    ClientOptions, ModelClient, ProviderSettings, RetryPolicy, Timeouts, ToolSpec, WireApi,
};
use hailer_scripted_model::{Script, ScriptedModel};
use secrecy::SecretString;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// A key shaped like a real one, so literal and pattern redaction are both exercised.
pub(super) const KEY: &str = "sk-agent-test-7d1e0c9b4a2f8e6d3c5b";

/// Both wire APIs, streaming on and off.
pub(super) const MODES: [(WireApi, bool); 4] = [
    (WireApi::Responses, true),
    (WireApi::Responses, false),
    (WireApi::Chat, true),
    (WireApi::Chat, false),
];

pub(super) const INSTRUCTIONS: &str = "You are a careful analyst.";

pub(super) fn label(wire: WireApi, stream: bool) -> String {
    format!("{wire} stream={stream}")
}

pub(super) async fn start(script: Script) -> ScriptedModel {
    ScriptedModel::start(script)
        .await
        .expect("the scripted server starts")
}

pub(super) fn client(server: &ScriptedModel, wire: WireApi, stream: bool) -> ModelClient {
    let mut settings = ProviderSettings::new("scripted", server.base_url(), wire, "test-model");
    settings.stream = stream;
    settings.api_key = Some(SecretString::from(KEY));
    settings.env_key = Some("SCRIPTED_API_KEY".to_owned());
    let options = ClientOptions {
        retry: RetryPolicy {
            max_retries: 0,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(10),
            retry_after_cap: Duration::from_secs(1),
        },
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            response: Duration::from_secs(20),
            stream_idle: Duration::from_secs(20),
        },
    };
    ModelClient::new(settings, options).expect("valid settings")
}

fn string_tool(name: &str, description: &str, field: &str) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {field: {"type": "string"}},
        }),
    }
}

/// Answers `echo: <text>`.
pub(super) struct Echo;

impl Tool for Echo {
    fn spec(&self) -> ToolSpec {
        string_tool("echo", "Repeats the text.", "text")
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> String {
        match arguments.get("text").and_then(Value::as_str) {
            Some(text) => format!("echo: {text}"),
            None => tool_error("text is missing.", "Pass {\"text\": \"...\"}."),
        }
    }
}

/// Waits until a second call arrives (so two calls only finish if they run at the same time),
/// then waits `after_ms` more.
pub(super) struct Meet {
    pub barrier: Arc<tokio::sync::Barrier>,
}

impl Tool for Meet {
    fn spec(&self) -> ToolSpec {
        string_tool("meet", "Waits for a partner call.", "after_ms")
    }

    async fn call(&self, arguments: Value, ctx: &ToolContext) -> String {
        let after_ms = arguments
            .get("after_ms")
            .and_then(Value::as_str)
            .and_then(|ms| ms.parse().ok())
            .unwrap_or(0);
        let met = tokio::time::timeout(Duration::from_secs(3), self.barrier.wait()).await;
        if met.is_err() {
            return tool_error("nobody came.", "The calls did not run at the same time.");
        }
        tokio::time::sleep(Duration::from_millis(after_ms)).await;
        format!("met {}", ctx.call_id)
    }
}

/// Runs until cancelled (or 30 s), and records that it saw the cancellation.
#[derive(Clone, Default)]
pub(super) struct Sleeper {
    pub saw_cancel: Arc<AtomicBool>,
}

impl Tool for Sleeper {
    fn spec(&self) -> ToolSpec {
        string_tool("sleep", "Takes a long time.", "why")
    }

    async fn call(&self, _arguments: Value, ctx: &ToolContext) -> String {
        tokio::select! {
            () = ctx.cancel.cancelled() => {
                self.saw_cancel.store(true, Ordering::SeqCst);
                "stopped".to_owned()
            }
            () = tokio::time::sleep(Duration::from_secs(30)) => "slept".to_owned(),
        }
    }
}

pub(super) fn registry() -> ToolRegistry {
    ToolRegistry::new()
        .with(Echo)
        .and_then(|tools| {
            tools.with(Meet {
                barrier: Arc::new(tokio::sync::Barrier::new(2)),
            })
        })
        .expect("distinct tool names")
}

/// Every event of a turn, in order.
#[derive(Clone, Default)]
pub(super) struct Recorder(pub Arc<Mutex<Vec<TurnEvent>>>);

impl Recorder {
    pub(super) fn events(&self) -> Vec<TurnEvent> {
        self.0.lock().expect("recorder lock").clone()
    }
}

impl EventSink for Recorder {
    fn emit(&self, event: TurnEvent) {
        self.0.lock().expect("recorder lock").push(event);
    }
}

/// A workspace with a store and a thread.
pub(super) struct Workspace {
    /// Kept so the folder lives as long as the store.
    _dir: tempfile::TempDir,
    pub store: ConversationStore,
    pub thread: String,
}

impl Workspace {
    pub(super) fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut store = ConversationStore::open_in_workspace(dir.path()).expect("the store opens");
        let thread = store
            .new_thread("test-model", "scripted")
            .expect("a new thread")
            .id;
        Self {
            _dir: dir,
            store,
            thread,
        }
    }

    /// Runs one turn and returns its outcome and events.
    pub(super) async fn turn(
        &mut self,
        client: &ModelClient,
        tools: &ToolRegistry,
        settings: &TurnSettings,
        text: &str,
    ) -> (TurnOutcome, Vec<TurnEvent>) {
        let recorder = Recorder::default();
        let cancel = CancellationToken::new();
        let outcome = self
            .turn_with(client, tools, settings, text, &recorder, &cancel)
            .await;
        (outcome, recorder.events())
    }

    pub(super) async fn turn_with(
        &mut self,
        client: &ModelClient,
        tools: &ToolRegistry,
        settings: &TurnSettings,
        text: &str,
        events: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> TurnOutcome {
        Turn {
            client,
            instructions: INSTRUCTIONS,
            store: &mut self.store,
            thread: &self.thread,
            tools,
            settings,
            events,
            cancel,
        }
        .run(text)
        .await
    }

    pub(super) fn items(&self) -> Vec<hailer_agent::ThreadItem> {
        self.store
            .load_items(&self.thread)
            .expect("the items load")
            .into_iter()
            .map(|stored| stored.item)
            .collect()
    }
}

/// The final text of a finished turn.
pub(super) fn finished_text(outcome: &TurnOutcome) -> &str {
    match outcome {
        TurnOutcome::Finished { text, .. } => text,
        other => panic!("the turn did not finish: {other:?}"),
    }
}

/// Tool outputs the model was sent in a recorded request, in order.
pub(super) fn sent_tool_outputs(request: &hailer_scripted_model::RecordedRequest) -> Vec<String> {
    request
        .conversation()
        .iter()
        .filter_map(|item| {
            let is_output = item.get("type").and_then(Value::as_str)
                == Some("function_call_output")
                || item.get("role").and_then(Value::as_str) == Some("tool");
            let text = item.get("output").or_else(|| item.get("content"));
            is_output.then(|| text.and_then(Value::as_str).unwrap_or_default().to_owned())
        })
        .collect()
}

/// The user messages in a recorded request, in order.
pub(super) fn sent_user_texts(request: &hailer_scripted_model::RecordedRequest) -> Vec<String> {
    request
        .conversation()
        .iter()
        .filter(|item| item.get("role").and_then(Value::as_str) == Some("user"))
        .map(|item| match item.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect(),
            _ => String::new(),
        })
        .collect()
}
