//! Cancelling a turn during a streamed reply or a long tool: the turn ends within 200 ms, the
//! model request is dropped, tools see the cancellation, and the next turn's history passes the
//! scripted server's strict checks.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hailer_agent::ToolRegistry;
use hailer_agent::{INTERRUPTED_RESULT, check_history as check};
use hailer_agent::{ThreadItem, TurnEvent, TurnOutcome, TurnSettings};
use hailer_scripted_model::{Reply, Script};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::{
    Echo, MODES, Recorder, Sleeper, Workspace, client, finished_text, label, sent_tool_outputs,
    sent_user_texts, start,
};

const LIMIT: Duration = Duration::from_millis(200);

/// Cancels the token when the first event matching `trigger` arrives, and notes when.
struct CancelOn<F> {
    recorder: Recorder,
    cancel: CancellationToken,
    trigger: F,
    cancelled_at: Arc<Mutex<Option<Instant>>>,
}

impl<F: Fn(&TurnEvent) -> bool + Send + Sync> hailer_agent::EventSink for CancelOn<F> {
    fn emit(&self, event: TurnEvent) {
        let fire = (self.trigger)(&event);
        self.recorder.emit(event);
        if fire && !self.cancel.is_cancelled() {
            *self.cancelled_at.lock().unwrap() = Some(Instant::now());
            self.cancel.cancel();
        }
    }
}

#[tokio::test]
async fn cancelling_a_streamed_reply_ends_the_turn_at_once_and_keeps_history_valid() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        // Streamed: 100 deltas 50 ms apart. Whole: a body that stalls for 10 s.
        let reply = if stream {
            Reply::text("y".repeat(100))
                .in_deltas(100)
                .delta_delay(Duration::from_millis(50))
        } else {
            Reply::text("late").stall_after_deltas(0, Duration::from_secs(10))
        };
        let server = start(Script::new().reply(reply)).await;
        let client = client(&server, wire, stream);
        let tools = ToolRegistry::new().with(Echo).unwrap();
        let settings = TurnSettings::default();
        let mut workspace = Workspace::new();

        let cancel = CancellationToken::new();
        let cancelled_at = Arc::new(Mutex::new(None));
        let sink = CancelOn {
            recorder: Recorder::default(),
            cancel: cancel.clone(),
            trigger: |event: &TurnEvent| matches!(event, TurnEvent::TextDelta { .. }),
            cancelled_at: Arc::clone(&cancelled_at),
        };
        if !stream {
            // No deltas arrive before the stall: cancel once the request is on its way.
            let cancel = cancel.clone();
            let cancelled_at = Arc::clone(&cancelled_at);
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                *cancelled_at.lock().unwrap() = Some(Instant::now());
                cancel.cancel();
            });
        }
        let outcome = workspace
            .turn_with(&client, &tools, &settings, "count to 100", &sink, &cancel)
            .await;
        let ended = Instant::now();
        let cancelled_at = cancelled_at
            .lock()
            .unwrap()
            .expect("the turn was cancelled");
        assert_eq!(outcome, TurnOutcome::Cancelled, "{mode}");
        assert!(
            ended - cancelled_at <= LIMIT,
            "{mode}: the turn took {:?} to end",
            ended - cancelled_at
        );
        let events = sink.recorder.events();
        assert_eq!(events.last(), Some(&TurnEvent::Cancelled), "{mode}");
        assert!(
            server.wait_for_client_gone(Duration::from_secs(2)).await,
            "{mode}: the HTTP request was not dropped"
        );

        // The next turn: the unanswered message is merged, and the strict server accepts it.
        server.push(Script::new().reply_text("Here it is."));
        let (outcome, _) = workspace.turn(&client, &tools, &settings, "again").await;
        assert_eq!(finished_text(&outcome), "Here it is.", "{mode}");
        let last = server.requests().pop().unwrap();
        assert_eq!(sent_user_texts(&last), ["count to 100\n\nagain"], "{mode}");
        assert_eq!(check(&workspace.items()), Ok(()), "{mode}");
    }
}

#[tokio::test]
async fn cancelling_during_a_long_tool_stops_it_and_records_the_interruption() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let script = Script::new().reply(
            Reply::default()
                .with_tool_call_id("quick", "echo", json!({"text": "done"}))
                .with_tool_call_id("slow", "sleep", json!({"why": "test"})),
        );
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let sleeper = Sleeper::default();
        let saw_cancel = Arc::clone(&sleeper.saw_cancel);
        let tools = ToolRegistry::new()
            .with(Echo)
            .unwrap()
            .with(sleeper)
            .unwrap();
        let settings = TurnSettings::default();
        let mut workspace = Workspace::new();

        let cancel = CancellationToken::new();
        let cancelled_at = Arc::new(Mutex::new(None));
        let sink = CancelOn {
            recorder: Recorder::default(),
            cancel: CancellationToken::new(), // cancelled below, once the tool runs
            trigger: |_: &TurnEvent| false,
            cancelled_at: Arc::clone(&cancelled_at),
        };
        {
            let cancel = cancel.clone();
            let cancelled_at = Arc::clone(&cancelled_at);
            let recorder = sink.recorder.clone();
            tokio::spawn(async move {
                // Wait until the quick call finished, then give the slow one a moment.
                while !recorder.events().iter().any(|event| {
                    matches!(event, TurnEvent::ToolCallFinished { call_id, .. } if call_id == "quick")
                }) {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                *cancelled_at.lock().unwrap() = Some(Instant::now());
                cancel.cancel();
            });
        }
        let outcome = workspace
            .turn_with(&client, &tools, &settings, "wait", &sink, &cancel)
            .await;
        let ended = Instant::now();
        let cancelled_at = cancelled_at
            .lock()
            .unwrap()
            .expect("the turn was cancelled");
        assert_eq!(outcome, TurnOutcome::Cancelled, "{mode}");
        assert!(
            ended - cancelled_at <= LIMIT,
            "{mode}: the turn took {:?} to end",
            ended - cancelled_at
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            saw_cancel.load(Ordering::SeqCst),
            "{mode}: the tool saw the cancellation"
        );
        let events = sink.recorder.events();
        assert!(
            events.iter().any(|event| matches!(event,
                TurnEvent::ToolCallFinished { call_id, ok: false, .. } if call_id == "slow")),
            "{mode}: {events:?}"
        );

        // The finished call keeps its result; the interrupted one says so.
        let items = workspace.items();
        let results: Vec<(String, String)> = items
            .iter()
            .filter_map(|item| match item {
                ThreadItem::ToolResult(result) => {
                    Some((result.call_id.clone(), result.output.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            results,
            [
                ("quick".to_owned(), "echo: done".to_owned()),
                ("slow".to_owned(), INTERRUPTED_RESULT.to_owned())
            ],
            "{mode}"
        );
        assert_eq!(check(&items[..]).err(), None, "{mode}");

        server.push(Script::new().reply_text("Stopped as asked."));
        let (outcome, _) = workspace
            .turn(&client, &tools, &settings, "what happened?")
            .await;
        assert_eq!(finished_text(&outcome), "Stopped as asked.", "{mode}");
        let last = server.requests().pop().unwrap();
        assert_eq!(
            sent_tool_outputs(&last),
            ["echo: done", INTERRUPTED_RESULT],
            "{mode}"
        );
    }
}

#[tokio::test]
async fn a_killed_turn_with_dangling_calls_is_repaired_before_the_next() {
    // As if the process died after saving the model's tool call and nothing else.
    let server = start(Script::new().reply_text("Recovered.")).await;
    let client = client(&server, hailer_model::WireApi::Responses, true);
    let tools = ToolRegistry::new().with(Echo).unwrap();
    let mut workspace = Workspace::new();
    let thread = workspace.thread.clone();
    workspace
        .store
        .append(&thread, &ThreadItem::User("start".into()))
        .unwrap();
    workspace
        .store
        .append(
            &thread,
            &ThreadItem::Assistant(hailer_model::AssistantMessage {
                text: String::new(),
                tool_calls: vec![hailer_model::ToolCall {
                    call_id: "lost".into(),
                    name: "echo".into(),
                    arguments: "{}".into(),
                }],
            }),
        )
        .unwrap();
    let (outcome, _) = workspace
        .turn(&client, &tools, &TurnSettings::default(), "still there?")
        .await;
    assert_eq!(finished_text(&outcome), "Recovered.");
    assert_eq!(
        sent_tool_outputs(&server.requests()[0]),
        [INTERRUPTED_RESULT]
    );
    assert_eq!(check(&workspace.items()), Ok(()));
}
