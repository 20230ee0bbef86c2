//! The conversation so far as a person reads it: each message the user sent, the tool calls
//! the agent made for it (with the same previews live clients are shown) and its answer.

use std::collections::HashMap;

use crate::item::ThreadItem;
use crate::turn::{argument_preview, call_code, result_output, result_preview};

/// One exchange of the conversation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PastTurn {
    /// What the user wrote.
    pub text: String,
    /// The tool calls the agent made for the message, in the order the model asked for them.
    pub tools: Vec<PastToolCall>,
    /// The agent's answer: the text of its replies, joined; empty when it gave none.
    pub answer: String,
}

/// A tool call of a past turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PastToolCall {
    /// The id the model gave the call, which its result carries too.
    pub call_id: String,
    /// The tool the model asked for.
    pub name: String,
    /// Its arguments (the code), on one line, capped at
    /// [`crate::turn::ARGUMENT_PREVIEW_CHARS`] characters.
    pub preview: String,
    /// The code it ran, when its arguments carried one.
    pub code: Option<String>,
    /// `None` when no result was kept.
    pub ok: Option<bool>,
    /// The start of its result.
    pub result: String,
    /// Its result for review, capped.
    pub output: String,
}

/// The turns of `items`, oldest first. Summaries stand for turns no longer kept and are left
/// out; items before the first user message (none in a well-formed thread) are skipped.
pub fn past_turns<'a>(items: impl IntoIterator<Item = &'a ThreadItem>) -> Vec<PastTurn> {
    let mut turns: Vec<PastTurn> = Vec::new();
    // Where each call id's entry is: (turn index, call index).
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for item in items {
        match item {
            ThreadItem::User(text) => turns.push(PastTurn {
                text: text.clone(),
                ..PastTurn::default()
            }),
            ThreadItem::Assistant(message) => {
                let Some(index) = turns.len().checked_sub(1) else {
                    continue;
                };
                let turn = &mut turns[index];
                let text = message.text.trim();
                if !text.is_empty() {
                    if !turn.answer.is_empty() {
                        turn.answer.push_str("\n\n");
                    }
                    turn.answer.push_str(text);
                }
                for call in &message.tool_calls {
                    calls.insert(call.call_id.clone(), (index, turn.tools.len()));
                    turn.tools.push(PastToolCall {
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                        preview: argument_preview(call),
                        code: call_code(call),
                        ok: None,
                        result: String::new(),
                        output: String::new(),
                    });
                }
            }
            ThreadItem::ToolResult(result) => {
                if let Some(&(turn, call)) = calls.get(&result.call_id)
                    && let Some(entry) = turns.get_mut(turn).and_then(|t| t.tools.get_mut(call))
                {
                    let (ok, preview) = result_preview(&result.output);
                    entry.ok = Some(ok);
                    entry.result = preview;
                    entry.output = result_output(&result.output);
                }
            }
            ThreadItem::Summary(_) => {}
        }
    }
    turns
}

#[cfg(test)]
mod tests {
    use hailer_model::{AssistantMessage, ToolCall, ToolResult};

    use super::*;

    fn assistant(text: &str, calls: &[(&str, &str, &str)]) -> ThreadItem {
        ThreadItem::Assistant(AssistantMessage {
            text: text.to_owned(),
            tool_calls: calls
                .iter()
                .map(|(id, name, arguments)| ToolCall {
                    call_id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    arguments: (*arguments).to_owned(),
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

    #[test]
    fn turns_gather_their_calls_results_and_answer() {
        let items = vec![
            ThreadItem::Summary("older turns".to_owned()),
            assistant("stray", &[]),
            ThreadItem::User("How many rows?".to_owned()),
            assistant("", &[("c1", "marimo_execute", "{\"code\": \"len(df)\"}")]),
            result("c1", "42"),
            assistant("There are 42 rows.", &[]),
            ThreadItem::User("And columns?".to_owned()),
            assistant(
                "",
                &[("c2", "marimo_execute", "{\"code\":\n \"df.width\"}")],
            ),
            assistant("I could not tell.", &[]),
        ];
        let turns = past_turns(&items);
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].text, "How many rows?");
        assert_eq!(turns[0].answer, "There are 42 rows.");
        assert_eq!(
            turns[0].tools,
            vec![PastToolCall {
                call_id: "c1".to_owned(),
                name: "marimo_execute".to_owned(),
                preview: "{\"code\": \"len(df)\"}".to_owned(),
                code: Some("len(df)".to_owned()),
                ok: Some(true),
                result: "42".to_owned(),
                output: "42".to_owned(),
            }]
        );
        assert_eq!(turns[1].tools[0].preview, "{\"code\": \"df.width\"}");
        assert_eq!(turns[1].tools[0].ok, None);
        assert_eq!(turns[1].answer, "I could not tell.");
    }

    #[test]
    fn an_empty_thread_has_no_turns() {
        assert!(past_turns(&[]).is_empty());
    }
}
