//! A model that sends without end is stopped by the turn's stream budget: within one reply, and
//! over several calls that each stay small.

use hailer_agent::check_history as check;
use hailer_agent::{TurnEvent, TurnOutcome, TurnSettings};
use hailer_scripted_model::{Reply, Script};
use serde_json::json;

use super::support::{MODES, Workspace, client, finished_text, label, registry, start};

fn settings(cap: usize) -> TurnSettings {
    TurnSettings {
        max_stream_bytes: cap,
        ..TurnSettings::default()
    }
}

fn failure(outcome: &TurnOutcome, mode: &str) -> String {
    let TurnOutcome::Failed { message, .. } = outcome else {
        panic!("{mode}: {outcome:?}");
    };
    message.clone()
}

#[tokio::test]
async fn one_endless_reply_is_stopped_and_the_next_turn_goes_on() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let long = "word ".repeat(2_000);
        let server = start(Script::new().reply(Reply::text(long).in_deltas(400))).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &settings(4_000), "talk")
            .await;
        let message = failure(&outcome, &mode);
        assert!(
            message.contains("more than 4000 bytes in this turn"),
            "{mode}: {message}"
        );
        assert!(
            matches!(events.last(), Some(TurnEvent::Failed { .. })),
            "{mode}"
        );
        let streamed: usize = events
            .iter()
            .filter_map(|event| match event {
                TurnEvent::TextDelta { text } => Some(text.len()),
                _ => None,
            })
            .sum();
        assert!(
            streamed <= 4_000,
            "{mode}: {streamed} bytes reached the clients"
        );
        assert_eq!(check(&workspace.items()), Ok(()), "{mode}");

        server.push(Script::new().reply_text("Short and sweet."));
        let (outcome, _) = workspace
            .turn(&client, &registry(), &settings(4_000), "again")
            .await;
        assert_eq!(finished_text(&outcome), "Short and sweet.", "{mode}");
    }
}

#[tokio::test]
async fn small_calls_add_up_to_the_turns_budget() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let mut script = Script::new();
        for round in 0..10 {
            let text = format!("{round}{}", "x".repeat(300));
            script = script.tool_call("echo", json!({ "text": text }));
        }
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, _) = workspace
            .turn(&client, &registry(), &settings(1_000), "loop")
            .await;
        let message = failure(&outcome, &mode);
        assert!(
            message.contains("more than 1000 bytes"),
            "{mode}: {message}"
        );
        let calls = server.requests().len();
        assert!(
            (3..=4).contains(&calls),
            "{mode}: {calls} calls before the stop"
        );
        assert_eq!(check(&workspace.items()), Ok(()), "{mode}");
    }
}
