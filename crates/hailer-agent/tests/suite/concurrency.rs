//! Several tool calls of one reply run at the same time; their results keep the call order.

use hailer_agent::{ThreadItem, TurnEvent, TurnSettings};
use hailer_scripted_model::{Reply, Script};
use serde_json::json;

use super::support::{
    MODES, Workspace, client, finished_text, label, registry, sent_tool_outputs, start,
};

#[tokio::test]
async fn two_calls_of_one_reply_run_concurrently_and_keep_call_order() {
    for (wire, stream) in MODES {
        let mode = label(wire, stream);
        // Each call waits at a barrier for the other: run one after the other, neither would
        // meet. The first lingers after meeting, so it finishes last.
        let script = Script::new()
            .reply(
                Reply::default()
                    .with_tool_call_id("first", "meet", json!({"after_ms": "150"}))
                    .with_tool_call_id("second", "meet", json!({"after_ms": "0"})),
            )
            .reply_text("Both met.");
        let server = start(script).await;
        let client = client(&server, wire, stream);
        let mut workspace = Workspace::new();
        let (outcome, events) = workspace
            .turn(&client, &registry(), &TurnSettings::default(), "meet")
            .await;
        assert_eq!(finished_text(&outcome), "Both met.", "{mode}");

        let finish_order: Vec<&str> = events
            .iter()
            .filter_map(|event| match event {
                TurnEvent::ToolCallFinished { call_id, .. } => Some(call_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(finish_order, ["second", "first"], "{mode}: they overlapped");

        let outputs = sent_tool_outputs(&server.requests()[1]);
        assert_eq!(outputs, ["met first", "met second"], "{mode}: call order");
        let stored: Vec<String> = workspace
            .items()
            .into_iter()
            .filter_map(|item| match item {
                ThreadItem::ToolResult(result) => Some(result.call_id),
                _ => None,
            })
            .collect();
        assert_eq!(stored, ["first", "second"], "{mode}");
    }
}
