//! Every completed item survives a store that is never closed; the file stays sound.
//! (`tests/kill_process.rs` does the same with a writer process killed by SIGKILL.)

use hailer_agent::ConversationStore;
use hailer_agent::{ThreadItem, TokenUsage};
use hailer_model::{AssistantMessage, ToolCall, ToolResult};

fn item(n: usize) -> ThreadItem {
    match n % 3 {
        0 => ThreadItem::User(format!("question {n}")),
        1 => ThreadItem::Assistant(AssistantMessage {
            text: String::new(),
            tool_calls: vec![ToolCall {
                call_id: format!("call-{n}"),
                name: "marimo_execute".into(),
                arguments: format!("{{\"code\": \"print({n})\"}}"),
            }],
        }),
        _ => ThreadItem::ToolResult(ToolResult {
            call_id: format!("call-{}", n - 1),
            output: "r".repeat(12_000),
        }),
    }
}

#[test]
fn items_survive_a_store_dropped_without_closing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".hailer").join("threads.sqlite");
    let mut store = ConversationStore::open(&path).unwrap();
    let thread = store.new_thread("m", "p").unwrap().id;
    let written: Vec<ThreadItem> = (0..90).map(item).collect();
    for item in &written {
        store.append(&thread, item).unwrap();
    }
    store
        .add_usage(
            &thread,
            Some(TokenUsage {
                input: 5,
                output: 1,
            }),
        )
        .unwrap();
    // No close, no checkpoint: the connection is leaked as a killed process would leave it.
    std::mem::forget(store);

    let reopened = ConversationStore::open(&path).unwrap();
    let loaded: Vec<ThreadItem> = reopened
        .load_items(&thread)
        .unwrap()
        .into_iter()
        .map(|stored| stored.item)
        .collect();
    assert_eq!(loaded, written);
    assert_eq!(reopened.turns(&thread).unwrap(), 1);
    assert_eq!(reopened.integrity_check().unwrap(), "ok");
}
