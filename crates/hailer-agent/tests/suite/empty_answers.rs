//! An answer with no text and no tool call is asked for once more, then fails the turn clearly,
//! on both wires; the history stays valid and the next turn goes on.

use hailer_agent::check_history as check;
use hailer_agent::{TurnEvent, TurnOutcome, TurnSettings};
use hailer_scripted_model::Script;

use super::support::{MODES, Workspace, client, finished_text, label, registry, start};

#[tokio::test]
async fn two_empty_answers_fail_the_turn() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply_text("").reply_text("  ")).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let settings = TurnSettings::default();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &settings, "what is the total?")
            .await;
        let TurnOutcome::Failed { message, hint } = &outcome else {
            panic!("{mode}: {outcome:?}");
        };
        assert!(
            message.starts_with(
                "The model 'test-model' of provider 'scripted' sent an empty answer (no text and \
                 no tool call), also when asked a second time."
            ),
            "{mode}: {message}"
        );
        assert!(
            message.contains("try another model with /model"),
            "{mode}: {message}"
        );
        assert!(hint.contains("send your message again"), "{mode}: {hint}");
        assert!(
            matches!(events.last(), Some(TurnEvent::Failed { .. })),
            "{mode}"
        );
        assert_eq!(
            server.requests().len(),
            2,
            "{mode}: asked once more, not again"
        );
        assert_eq!(check(&workspace.items()), Ok(()), "{mode}");

        server.push(Script::new().reply_text("The total is 42."));
        let (outcome, _) = workspace
            .turn(&client, &registry(), &settings, "again please")
            .await;
        assert_eq!(finished_text(&outcome), "The total is 42.", "{mode}");
    }
}

#[tokio::test]
async fn one_empty_answer_is_asked_for_again() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let server = start(Script::new().reply_text("").reply_text("Here it is.")).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, _) = workspace
            .turn(&client, &registry(), &TurnSettings::default(), "total?")
            .await;
        assert_eq!(finished_text(&outcome), "Here it is.", "{mode}");
        assert_eq!(server.requests().len(), 2, "{mode}");
        let empty_saved = workspace.items().iter().any(|item| {
            matches!(item, hailer_agent::ThreadItem::Assistant(message)
                if message.text.trim().is_empty() && message.tool_calls.is_empty())
        });
        assert!(!empty_saved, "{mode}: the empty answer is not kept");
    }
}
