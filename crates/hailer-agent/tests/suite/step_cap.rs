//! A model that never stops calling tools is stopped by the step cap, with a clear message and a
//! valid history.

use hailer_agent::check_history as check;
use hailer_agent::{TurnEvent, TurnOutcome, TurnSettings};
use hailer_scripted_model::Script;
use serde_json::json;

use super::support::{MODES, Workspace, client, finished_text, label, registry, start};

#[tokio::test]
async fn the_step_cap_ends_the_turn_with_a_clear_message() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let mut script = Script::new();
        for round in 0..3 {
            script = script.tool_call("echo", json!({"text": format!("round {round}")}));
        }
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let settings = TurnSettings {
            max_model_calls: 3,
            ..TurnSettings::default()
        };
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &settings, "loop")
            .await;
        let TurnOutcome::Failed { message, hint } = &outcome else {
            panic!("{mode}: {outcome:?}");
        };
        assert!(message.contains("after 3 model calls"), "{mode}: {message}");
        assert!(hint.contains("go on"), "{mode}: {hint}");
        assert!(
            matches!(events.last(), Some(TurnEvent::Failed { .. })),
            "{mode}"
        );
        assert_eq!(server.requests().len(), 3, "{mode}: no call past the cap");
        assert_eq!(check(&workspace.items()), Ok(()), "{mode}");

        server.push(Script::new().reply_text("Done now."));
        let (outcome, _) = workspace
            .turn(&client, &registry(), &settings, "go on")
            .await;
        assert_eq!(finished_text(&outcome), "Done now.", "{mode}");
    }
}

#[tokio::test]
async fn the_default_cap_lets_a_long_analysis_finish_and_still_stops_a_loop() {
    // A long analysis: thirty tool rounds, then the answer, all under the default settings.
    let mut script = Script::new();
    for round in 0..30 {
        script = script.tool_call("echo", json!({"text": format!("step {round}")}));
    }
    let server = start(script.reply_text("All thirty steps done.")).await;
    let model = client(&server, hailer_model::WireApi::Chat, true);
    let settings = TurnSettings::default();
    let mut workspace = Workspace::new();
    let (outcome, _) = workspace.turn(&model, &registry(), &settings, "work").await;
    assert_eq!(finished_text(&outcome), "All thirty steps done.");
    assert_eq!(server.requests().len(), 31);

    // A model that never stops is stopped by the same default, and says after how many calls.
    let mut script = Script::new();
    for round in 0..200 {
        script = script.tool_call("echo", json!({"text": format!("again {round}")}));
    }
    let server = start(script).await;
    let model = client(&server, hailer_model::WireApi::Chat, true);
    let (outcome, _) = workspace.turn(&model, &registry(), &settings, "loop").await;
    let TurnOutcome::Failed { message, .. } = &outcome else {
        panic!("{outcome:?}");
    };
    let calls = server.requests().len();
    assert!((31..200).contains(&calls), "stopped after {calls} calls");
    assert!(
        message.contains(&format!("after {calls} model calls")),
        "{message}"
    );
    assert_eq!(check(&workspace.items()), Ok(()));
}

#[tokio::test]
async fn a_model_failure_ends_the_turn_and_the_next_turn_goes_on() {
    let server = start(Script::new().fail(400)).await;
    let client = client(&server, hailer_model::WireApi::Chat, true);
    let mut workspace = Workspace::new();
    let settings = TurnSettings::default();
    let (outcome, events) = workspace
        .turn(&client, &registry(), &settings, "first")
        .await;
    let TurnOutcome::Failed { message, .. } = &outcome else {
        panic!("{outcome:?}");
    };
    assert!(message.contains("HTTP 400"), "{message}");
    assert!(matches!(events.last(), Some(TurnEvent::Failed { .. })));
    server.push(Script::new().reply_text("Better."));
    let (outcome, _) = workspace
        .turn(&client, &registry(), &settings, "second")
        .await;
    assert_eq!(finished_text(&outcome), "Better.");
    assert_eq!(workspace.store.turns(&workspace.thread).unwrap(), 2);
}
