#![allow(clippy::unwrap_used, clippy::expect_used)]

use hailer_model::{AssistantMessage, ToolCall};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

fn user(text: &str) -> ThreadItem {
    ThreadItem::User(text.to_owned())
}

fn says(text: &str) -> ThreadItem {
    ThreadItem::Assistant(AssistantMessage {
        text: text.to_owned(),
        tool_calls: Vec::new(),
    })
}

fn calls(ids: &[&str]) -> ThreadItem {
    ThreadItem::Assistant(AssistantMessage {
        text: String::new(),
        tool_calls: ids
            .iter()
            .map(|id| ToolCall {
                call_id: (*id).to_owned(),
                name: "marimo_execute".to_owned(),
                arguments: "{}".to_owned(),
            })
            .collect(),
    })
}

fn result(id: &str, output: &str) -> ThreadItem {
    ThreadItem::ToolResult(ToolResult {
        call_id: id.to_owned(),
        output: output.to_owned(),
    })
}

fn interrupted(id: &str) -> ThreadItem {
    result(id, INTERRUPTED_RESULT)
}

fn summary(text: &str) -> ThreadItem {
    ThreadItem::Summary(text.to_owned())
}

#[test]
fn repairs_each_kind_of_damage() {
    let table: Vec<(&str, Vec<ThreadItem>, Vec<ThreadItem>)> = vec![
        ("empty", vec![], vec![]),
        (
            "valid history is unchanged",
            vec![user("q"), calls(&["a"]), result("a", "1"), says("done")],
            vec![user("q"), calls(&["a"]), result("a", "1"), says("done")],
        ),
        (
            "dangling call at the end",
            vec![user("q"), calls(&["a"])],
            vec![user("q"), calls(&["a"]), interrupted("a")],
        ),
        (
            "one of two calls answered",
            vec![user("q"), calls(&["a", "b"]), result("b", "2")],
            vec![
                user("q"),
                calls(&["a", "b"]),
                result("b", "2"),
                interrupted("a"),
            ],
        ),
        (
            "dangling call before a user message",
            vec![user("q"), calls(&["a"]), user("again")],
            vec![user("q"), calls(&["a"]), interrupted("a"), user("again")],
        ),
        (
            "unanswered user message is merged with the next",
            vec![user("first"), user("second")],
            vec![user("first\n\nsecond")],
        ),
        (
            "merging looks past a summary",
            vec![summary("s"), user("first"), summary("t"), user("second")],
            vec![summary("s"), user("first\n\nsecond"), summary("t")],
        ),
        (
            "result without a call is dropped",
            vec![user("q"), result("x", "?"), says("ok")],
            vec![user("q"), says("ok")],
        ),
        (
            "second result for one call is dropped",
            vec![
                user("q"),
                calls(&["a"]),
                result("a", "1"),
                result("a", "again"),
            ],
            vec![user("q"), calls(&["a"]), result("a", "1")],
        ),
        (
            "results after the next message no longer count",
            vec![user("q"), calls(&["a"]), says("hm"), result("a", "late")],
            vec![user("q"), calls(&["a"]), interrupted("a"), says("hm")],
        ),
    ];
    for (name, input, expected) in table {
        let repaired = repair(input);
        assert_eq!(repaired, expected, "{name}");
        assert_eq!(check(&repaired), Ok(()), "{name}");
    }
}

#[test]
fn the_new_user_message_is_merged_or_appended() {
    assert_eq!(
        with_user_message(vec![user("q"), says("a")], "next"),
        vec![user("q"), says("a"), user("next")]
    );
    assert_eq!(
        with_user_message(vec![user("q")], "next"),
        vec![user("q\n\nnext")]
    );
    assert_eq!(
        with_user_message(vec![user("q"), calls(&["a"])], "next"),
        vec![user("q"), calls(&["a"]), interrupted("a"), user("next")]
    );
}

#[test]
fn check_names_what_strict_endpoints_reject() {
    assert!(
        check(&[user("a"), user("b")])
            .unwrap_err()
            .contains("two user messages")
    );
    assert!(check(&[calls(&["a"])]).unwrap_err().contains("no result"));
    assert!(
        check(&[result("a", "")])
            .unwrap_err()
            .contains("no waiting call")
    );
    assert!(
        check(&[calls(&["a"]), says("x")])
            .unwrap_err()
            .contains("before the next message")
    );
}

fn any_item() -> impl Strategy<Value = ThreadItem> {
    let id = prop::sample::select(vec!["a", "b", "c"]);
    prop_oneof![
        "[a-z]{0,3}".prop_map(|text| user(&text)),
        "[a-z]{0,3}".prop_map(|text| says(&text)),
        prop::collection::vec(id.clone(), 0..3).prop_map(|ids| calls(&ids)),
        id.prop_map(|id| result(id, "out")),
        "[a-z]{0,3}".prop_map(|text| summary(&text)),
    ]
}

proptest! {
    #[test]
    fn any_history_repaired_is_valid(items in prop::collection::vec(any_item(), 0..30)) {
        let repaired = repair(items.clone());
        prop_assert_eq!(check(&repaired), Ok(()));
        // Repair is idempotent, and a valid history is left alone.
        prop_assert_eq!(&repair(repaired.clone()), &repaired);
        if check(&items).is_ok() {
            prop_assert_eq!(&repaired, &items);
        }
        let next = with_user_message(items, "new");
        prop_assert_eq!(check(&next), Ok(()));
        let last_message = next.iter().rev().find(|item| !matches!(item, ThreadItem::Summary(_)));
        prop_assert!(
            matches!(last_message, Some(ThreadItem::User(text)) if text.ends_with("new"))
        );
    }
}
