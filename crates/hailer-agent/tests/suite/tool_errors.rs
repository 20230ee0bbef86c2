//! A bad tool name, bad JSON arguments and a failing tool go back to the model as results; the
//! turn goes on.

use hailer_agent::{Tool, ToolContext, ToolRegistry};
use hailer_agent::{TurnEvent, TurnSettings};
use hailer_model::ToolSpec;
use hailer_scripted_model::{Reply, Script};
use serde_json::{Value, json};

use super::support::{
    Echo, MODES, Workspace, client, finished_text, label, registry, sent_tool_outputs, start,
};

#[tokio::test]
async fn unknown_tools_and_broken_arguments_are_reported_to_the_model() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        let script = Script::new()
            .reply(
                Reply::default()
                    .with_tool_call("no_such_tool", json!({}))
                    .with_tool_call("echo", Value::String("{\"text\": \"unclosed".to_owned()))
                    .with_tool_call("echo", json!({"text": "fine"})),
            )
            .reply_text("Sorry, fixed.");
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &TurnSettings::default(), "go")
            .await;
        assert_eq!(finished_text(&outcome), "Sorry, fixed.", "{mode}");

        let outputs = sent_tool_outputs(&server.requests()[1]);
        assert_eq!(outputs.len(), 3, "{mode}: {outputs:?}");
        assert!(
            outputs[0].starts_with("ERROR: there is no tool named 'no_such_tool'."),
            "{mode}: {}",
            outputs[0]
        );
        assert!(
            outputs[0].contains("\nThe tools are: echo, meet."),
            "{mode}"
        );
        assert!(
            outputs[1].starts_with("ERROR: the arguments of echo are not valid JSON"),
            "{mode}: {}",
            outputs[1]
        );
        assert!(outputs[1].contains("\nSend the arguments as one JSON object"));
        assert_eq!(outputs[2], "echo: fine", "{mode}");

        let oks: Vec<bool> = events
            .iter()
            .filter_map(|event| match event {
                TurnEvent::ToolCallFinished { ok, .. } => Some(*ok),
                _ => None,
            })
            .collect();
        assert_eq!(oks, [false, false, true], "{mode}");
    }
}

/// A tool that panics: the turn must not.
struct Panics;

impl Tool for Panics {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "explode".to_owned(),
            description: "Fails badly.".to_owned(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        panic!("the tool broke")
    }
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result() {
    let script = Script::new()
        .tool_call("explode", json!({}))
        .reply_text("It failed; trying another way.");
    let server = start(script).await;
    let client = client(&server, hailer_model::WireApi::Responses, true);
    let tools = ToolRegistry::new()
        .with(Panics)
        .unwrap()
        .with(Echo)
        .unwrap();
    let mut workspace = Workspace::new();
    let (outcome, _) = workspace
        .turn(&client, &tools, &TurnSettings::default(), "go")
        .await;
    assert_eq!(finished_text(&outcome), "It failed; trying another way.");
    let outputs = sent_tool_outputs(&server.requests()[1]);
    assert!(
        outputs[0].starts_with("ERROR: the tool explode stopped unexpectedly."),
        "{outputs:?}"
    );
}

#[tokio::test]
async fn long_results_are_capped_before_the_model_and_the_store_see_them() {
    let long = "x".repeat(30_000);
    let script = Script::new()
        .tool_call("echo", json!({"text": long}))
        .reply_text("Long.");
    let server = start(script).await;
    let client = client(&server, hailer_model::WireApi::Chat, false);
    let settings = TurnSettings {
        max_tool_output_chars: 1_000,
        ..TurnSettings::default()
    };
    let mut workspace = Workspace::new();
    workspace.turn(&client, &registry(), &settings, "go").await;
    let outputs = sent_tool_outputs(&server.requests()[1]);
    assert!(outputs[0].chars().count() <= 1_000, "{}", outputs[0].len());
    assert!(outputs[0].starts_with("echo: xxx"));
    assert!(outputs[0].contains("characters cut ...]"));
    let stored = workspace.items();
    assert!(
        matches!(&stored[2], hailer_agent::ThreadItem::ToolResult(result) if result.output == outputs[0])
    );
}

#[test]
fn duplicate_tool_names_are_refused() {
    let error = ToolRegistry::new()
        .with(Echo)
        .unwrap()
        .with(Echo)
        .unwrap_err();
    assert!(error.to_string().contains("'echo' is already registered"));
}
