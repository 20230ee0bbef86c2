//! History repair before each turn, so strict endpoints accept the history: every tool call is
//! answered before the conversation goes on, no result stands without its call, and no two user
//! messages follow each other.
//!
//! Damage comes from interruptions: a cancelled or killed turn can leave tool calls without
//! results, and a turn that failed before the model answered leaves the user's message
//! unanswered. Summaries are not messages (they travel in the instructions), so they are kept
//! where they are and ignored by the checks.

use std::collections::BTreeSet;

use hailer_model::ToolResult;

use crate::item::ThreadItem;

/// The result recorded for a tool call that never finished.
pub const INTERRUPTED_RESULT: &str = "[This tool call was interrupted before it finished, so \
     its effect is unknown. Check the current state before relying on it.]";

/// Separates two user messages merged into one.
const MERGE_SEPARATOR: &str = "\n\n";

#[derive(Default)]
struct Repairer {
    out: Vec<ThreadItem>,
    /// Calls of the latest assistant message still waiting for a result, in call order.
    pending: Vec<String>,
    /// Index in `out` of the latest user or assistant message.
    last_message: Option<usize>,
}

impl Repairer {
    fn answer_pending(&mut self) {
        for call_id in std::mem::take(&mut self.pending) {
            self.out.push(ThreadItem::ToolResult(ToolResult {
                call_id,
                output: INTERRUPTED_RESULT.to_owned(),
            }));
        }
    }

    fn push(&mut self, item: ThreadItem) {
        match item {
            ThreadItem::User(text) => {
                self.answer_pending();
                let previous = self.last_message.and_then(|index| self.out.get_mut(index));
                if let Some(ThreadItem::User(previous)) = previous {
                    previous.push_str(MERGE_SEPARATOR);
                    previous.push_str(&text);
                } else {
                    self.last_message = Some(self.out.len());
                    self.out.push(ThreadItem::User(text));
                }
            }
            ThreadItem::Assistant(message) => {
                self.answer_pending();
                for call in &message.tool_calls {
                    if !self.pending.contains(&call.call_id) {
                        self.pending.push(call.call_id.clone());
                    }
                }
                self.last_message = Some(self.out.len());
                self.out.push(ThreadItem::Assistant(message));
            }
            ThreadItem::ToolResult(result) => {
                if let Some(index) = self.pending.iter().position(|id| *id == result.call_id) {
                    self.pending.remove(index);
                    self.out.push(ThreadItem::ToolResult(result));
                } else {
                    tracing::debug!(call_id = %result.call_id, "dropping a tool result without its call");
                }
            }
            ThreadItem::Summary(text) => self.out.push(ThreadItem::Summary(text)),
        }
    }
}

/// A history strict endpoints accept: dangling tool calls get [`INTERRUPTED_RESULT`], results
/// without a waiting call are dropped, and consecutive user messages are merged into the first.
/// A valid history comes back unchanged.
pub(crate) fn repair(items: impl IntoIterator<Item = ThreadItem>) -> Vec<ThreadItem> {
    let mut repairer = Repairer::default();
    for item in items {
        repairer.push(item);
    }
    repairer.answer_pending();
    repairer.out
}

/// The history of the next model call: the stored items repaired, with the user's new text as
/// the last message (merged into an unanswered user message if the history ends with one).
pub(crate) fn with_user_message(
    items: impl IntoIterator<Item = ThreadItem>,
    text: &str,
) -> Vec<ThreadItem> {
    repair(items.into_iter().chain([ThreadItem::User(text.to_owned())]))
}

/// Checks a history the way strict endpoints do; `Err` says what they would reject.
pub fn check(items: &[ThreadItem]) -> Result<(), String> {
    let mut pending: BTreeSet<&str> = BTreeSet::new();
    let mut last_was_user = false;
    for (index, item) in items.iter().enumerate() {
        match item {
            ThreadItem::User(_) | ThreadItem::Assistant(_) => {
                if let Some(call_id) = pending.first() {
                    return Err(format!(
                        "item {index}: the tool call '{call_id}' has no result before the next message"
                    ));
                }
                let is_user = matches!(item, ThreadItem::User(_));
                if is_user && last_was_user {
                    return Err(format!("item {index}: two user messages in a row"));
                }
                last_was_user = is_user;
                if let ThreadItem::Assistant(message) = item {
                    pending.extend(message.tool_calls.iter().map(|call| call.call_id.as_str()));
                }
            }
            ThreadItem::ToolResult(result) => {
                if !pending.remove(result.call_id.as_str()) {
                    return Err(format!(
                        "item {index}: the result for '{}' has no waiting call",
                        result.call_id
                    ));
                }
                last_was_user = false;
            }
            ThreadItem::Summary(_) => {}
        }
    }
    match pending.first() {
        Some(call_id) => Err(format!("the tool call '{call_id}' has no result")),
        None => Ok(()),
    }
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
