#![allow(clippy::unwrap_used, clippy::expect_used)]

use hailer_model::{AssistantMessage, ToolCall, ToolResult};

use super::*;

fn stored(items: Vec<ThreadItem>) -> Vec<StoredItem> {
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| StoredItem {
            seq: i64::try_from(index).unwrap() + 1,
            item,
        })
        .collect()
}

fn call(id: &str) -> ThreadItem {
    ThreadItem::Assistant(AssistantMessage {
        text: String::new(),
        tool_calls: vec![ToolCall {
            call_id: id.into(),
            name: "marimo_execute".into(),
            arguments: r#"{"code": "df.shape"}"#.into(),
        }],
    })
}

fn result(id: &str) -> ThreadItem {
    ThreadItem::ToolResult(ToolResult {
        call_id: id.into(),
        output: "(120, 4)".into(),
    })
}

fn summariser(keep: usize) -> Summariser {
    Summariser {
        after_tokens: 10,
        keep_recent: keep,
        transcript_item_chars: 50,
    }
}

#[test]
fn split_keeps_the_last_items_and_whole_tool_pairs() {
    let items = stored(vec![
        ThreadItem::User("q1".into()),
        call("a"),
        result("a"),
        ThreadItem::User("q2".into()),
        call("b"),
        result("b"),
    ]);
    // Keeping 1 would start at a result: the cut moves back to its call.
    assert_eq!(summariser(1).split_point(&items), Some(4));
    assert_eq!(summariser(2).split_point(&items), Some(4));
    assert_eq!(summariser(3).split_point(&items), Some(3));
    // Keeping 4 would start at a result: the cut moves back to its call.
    assert_eq!(summariser(4).split_point(&items), Some(1));
    assert_eq!(summariser(5).split_point(&items), Some(1));
    assert_eq!(summariser(6).split_point(&items), None);
    assert_eq!(summariser(60).split_point(&items), None);
}

#[test]
fn a_lone_earlier_summary_is_not_summarised_again() {
    let items = stored(vec![
        ThreadItem::Summary("before".into()),
        ThreadItem::User("q".into()),
    ]);
    assert_eq!(summariser(1).split_point(&items), None);
}

#[test]
fn threshold_zero_is_off_and_estimates_take_the_larger_count() {
    let off = Summariser {
        after_tokens: 0,
        ..Summariser::default()
    };
    assert!(!off.is_due(u64::MAX));
    assert!(summariser(1).is_due(11));
    assert!(!summariser(1).is_due(10));
    let items = stored(vec![ThreadItem::User("x".repeat(400))]);
    assert_eq!(estimate_tokens("", &items, None), 100);
    assert_eq!(estimate_tokens("", &items, Some(5_000)), 5_000);
}

#[test]
fn transcript_caps_long_parts_and_names_tool_calls() {
    let items = stored(vec![
        ThreadItem::Summary("earlier".into()),
        ThreadItem::User("y".repeat(500)),
        call("a"),
        result("a"),
    ]);
    let text = summariser(1).transcript(&items);
    assert!(text.contains("[Earlier summary]\nearlier"), "{text}");
    assert!(
        text.contains("(calls marimo_execute with {\"code\": \"df.shape\"})"),
        "{text}"
    );
    assert!(text.contains("[Tool result]\n(120, 4)"), "{text}");
    assert!(!text.contains(&"y".repeat(51)), "{text}");
}

#[test]
fn the_summary_joins_the_instructions() {
    assert_eq!(instructions_with_summary("sys", None), "sys");
    let joined = instructions_with_summary("sys", Some("they asked about March"));
    assert!(joined.starts_with("sys\n\n## Earlier in this conversation"));
    assert!(joined.ends_with("they asked about March"));
}
