//! How an item is written to the `items` table: its kind in one column, its content as JSON in
//! another. These shapes are the on-disk format; change them only with a schema migration.

use hailer_model::{AssistantMessage, ToolCall, ToolResult};
use serde::{Deserialize, Serialize};

use crate::item::ThreadItem;

#[derive(Serialize, Deserialize)]
struct Text {
    text: String,
}

#[derive(Serialize, Deserialize)]
struct Call {
    call_id: String,
    name: String,
    arguments: String,
}

#[derive(Serialize, Deserialize)]
struct Assistant {
    text: String,
    #[serde(default)]
    tool_calls: Vec<Call>,
}

#[derive(Serialize, Deserialize)]
struct Result {
    call_id: String,
    output: String,
}

/// The item's JSON payload.
pub(crate) fn encode(item: &ThreadItem) -> serde_json::Result<String> {
    match item {
        ThreadItem::User(text) | ThreadItem::Summary(text) => {
            serde_json::to_string(&Text { text: text.clone() })
        }
        ThreadItem::Assistant(message) => serde_json::to_string(&Assistant {
            text: message.text.clone(),
            tool_calls: message
                .tool_calls
                .iter()
                .map(|call| Call {
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                })
                .collect(),
        }),
        ThreadItem::ToolResult(result) => serde_json::to_string(&Result {
            call_id: result.call_id.clone(),
            output: result.output.clone(),
        }),
    }
}

/// Reads an item back; `Err` names what is wrong.
pub(crate) fn decode(kind: &str, payload: &str) -> std::result::Result<ThreadItem, String> {
    let invalid = |error: serde_json::Error| format!("its {kind} payload is not readable: {error}");
    match kind {
        "user" => Ok(ThreadItem::User(
            serde_json::from_str::<Text>(payload).map_err(invalid)?.text,
        )),
        "summary" => Ok(ThreadItem::Summary(
            serde_json::from_str::<Text>(payload).map_err(invalid)?.text,
        )),
        "assistant" => {
            let assistant: Assistant = serde_json::from_str(payload).map_err(invalid)?;
            Ok(ThreadItem::Assistant(AssistantMessage {
                text: assistant.text,
                tool_calls: assistant
                    .tool_calls
                    .into_iter()
                    .map(|call| ToolCall {
                        call_id: call.call_id,
                        name: call.name,
                        arguments: call.arguments,
                    })
                    .collect(),
            }))
        }
        "tool_result" => {
            let result: Result = serde_json::from_str(payload).map_err(invalid)?;
            Ok(ThreadItem::ToolResult(ToolResult {
                call_id: result.call_id,
                output: result.output,
            }))
        }
        other => Err(format!("its kind '{other}' is unknown")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn any_row_decodes_or_says_why(kind in "[a-z_]{0,12}", payload in ".{0,80}") {
            if let Err(why) = decode(&kind, &payload) {
                prop_assert!(why.contains("unknown") || why.contains("not readable"));
            }
        }

        #[test]
        fn any_text_round_trips(text in ".{0,200}") {
            let item = ThreadItem::User(text);
            prop_assert_eq!(decode("user", &encode(&item).unwrap()).unwrap(), item);
        }
    }

    #[test]
    fn every_kind_round_trips() {
        let items = [
            ThreadItem::User("why?".into()),
            ThreadItem::Summary("earlier: ...".into()),
            ThreadItem::Assistant(AssistantMessage {
                text: "let me look".into(),
                tool_calls: vec![ToolCall {
                    call_id: "c1".into(),
                    name: "marimo_execute".into(),
                    arguments: "{\"code\": \"1\"}".into(),
                }],
            }),
            ThreadItem::ToolResult(ToolResult {
                call_id: "c1".into(),
                output: "1".into(),
            }),
        ];
        for item in items {
            let payload = encode(&item).unwrap();
            assert_eq!(decode(item.kind(), &payload).unwrap(), item);
        }
    }

    #[test]
    fn unknown_or_broken_rows_are_errors() {
        assert!(decode("picture", "{}").unwrap_err().contains("unknown"));
        assert!(
            decode("user", "not json")
                .unwrap_err()
                .contains("not readable")
        );
    }
}
