//! What a conversation thread holds: the messages exchanged with the model, and summaries that
//! stand in for older ones.

use hailer_model::{AssistantMessage, Item, ToolResult};

/// One entry of a stored thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadItem {
    /// What the user wrote (with any notices the product prefixed).
    User(String),
    /// A complete model reply: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The (already capped) output of one tool call.
    ToolResult(ToolResult),
    /// A summary of older items that were removed. Sent to the model as context, never shown
    /// to the user.
    Summary(String),
}

impl ThreadItem {
    /// The stable name of the item's kind, as stored.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::User(_) => "user",
            Self::Assistant(_) => "assistant",
            Self::ToolResult(_) => "tool_result",
            Self::Summary(_) => "summary",
        }
    }

    /// Roughly how much text the item carries, for size estimates.
    pub fn char_len(&self) -> usize {
        match self {
            Self::User(text) | Self::Summary(text) => text.len(),
            Self::Assistant(message) => {
                message.text.len()
                    + message
                        .tool_calls
                        .iter()
                        .map(|call| call.name.len() + call.arguments.len() + call.call_id.len())
                        .sum::<usize>()
            }
            Self::ToolResult(result) => result.output.len() + result.call_id.len(),
        }
    }
}

impl From<Item> for ThreadItem {
    fn from(item: Item) -> Self {
        match item {
            Item::User(text) => Self::User(text),
            Item::Assistant(message) => Self::Assistant(message),
            Item::ToolResult(result) => Self::ToolResult(result),
        }
    }
}

/// A stored item and its position in the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredItem {
    /// Increasing within a thread; not necessarily contiguous.
    pub seq: i64,
    /// The message or summary itself.
    pub item: ThreadItem,
}

/// What the model is sent for a history: the summaries (joined, for the instructions) and the
/// messages in order.
pub(crate) fn model_view<'a>(
    items: impl IntoIterator<Item = &'a ThreadItem>,
) -> (Option<String>, Vec<Item>) {
    let mut summaries: Vec<&str> = Vec::new();
    let mut messages = Vec::new();
    for item in items {
        match item {
            ThreadItem::User(text) => messages.push(Item::User(text.clone())),
            ThreadItem::Assistant(message) => messages.push(Item::Assistant(message.clone())),
            ThreadItem::ToolResult(result) => messages.push(Item::ToolResult(result.clone())),
            ThreadItem::Summary(text) => summaries.push(text),
        }
    }
    let summary = (!summaries.is_empty()).then(|| summaries.join("\n\n"));
    (summary, messages)
}
