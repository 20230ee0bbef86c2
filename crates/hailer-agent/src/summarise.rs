//! Summarising older turns once a conversation grows past a token threshold.
//!
//! All but the most recent items are rewritten by the same model and endpoint into one summary,
//! which replaces them in the store and reaches the model as part of its instructions. The
//! analyst never sees it. A tool call is never separated from its result.

use hailer_model::cap_chars;
use hailer_model::{Completion, Item, ModelClient, ModelRequest, ReasoningEffort};
use tokio_util::sync::CancellationToken;

use crate::item::{StoredItem, ThreadItem};
use crate::turn::stop::Stop;
use crate::turn::{StreamBudget, call_model};

/// Items kept verbatim after a summary.
pub const KEEP_RECENT_ITEMS: usize = 20;
/// The default threshold, in estimated tokens.
pub(crate) const DEFAULT_SUMMARIZE_AFTER_TOKENS: u64 = 100_000;
/// Characters of each message or tool result shown to the summarising call.
pub(crate) const TRANSCRIPT_ITEM_CHARS: usize = 2_000;

const SUMMARY_INSTRUCTIONS: &str = "\
You keep the memory of a long data-analysis conversation between an analyst and an assistant \
that works in a marimo notebook with Python (Polars, DuckDB). The transcript of its older part \
follows. Rewrite it as a compact record the assistant can continue from without the transcript. \
Keep: the analyst's goals, questions, preferences and decisions; the data files, tables, columns \
and notebooks involved; the cells created or changed and what they compute; findings with their \
key numbers; errors met and how they were resolved; and what is still open. Leave out pleasantries \
and raw outputs. If the transcript starts with an earlier summary, fold it in. Answer with the \
record only, in plain text, in at most about 400 words.";

/// The heading under which a summary joins the instructions.
const SUMMARY_HEADING: &str = "## Earlier in this conversation\n\nOlder turns were condensed \
into this summary; the messages after it are complete.";

/// When and how to summarise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summariser {
    /// Summarise once the estimate passes this many tokens; 0 turns summarising off.
    pub after_tokens: u64,
    /// How many of the latest items stay verbatim (default [`KEEP_RECENT_ITEMS`]); the cut
    /// moves earlier so the kept part never starts with a tool result.
    pub keep_recent: usize,
    /// Characters of each message, tool call's arguments or tool result the summarising call
    /// is shown (default `TRANSCRIPT_ITEM_CHARS`).
    pub transcript_item_chars: usize,
}

impl Default for Summariser {
    fn default() -> Self {
        Self {
            after_tokens: DEFAULT_SUMMARIZE_AFTER_TOKENS,
            keep_recent: KEEP_RECENT_ITEMS,
            transcript_item_chars: TRANSCRIPT_ITEM_CHARS,
        }
    }
}

/// A summary ready to replace the items up to `upto_seq`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    /// The sequence number of the last item the summary stands for; it and every earlier
    /// item are replaced.
    pub upto_seq: i64,
    /// The summary itself, trimmed and never empty.
    pub text: String,
    /// The summarising model call's reply, kept for its token usage.
    pub completion: Completion,
}

/// The estimated tokens of a request: the larger of the last reported input usage and a
/// characters-divided-by-four count of what would be sent.
pub fn estimate_tokens(
    instructions: &str,
    items: &[StoredItem],
    reported_input: Option<u64>,
) -> u64 {
    let chars = instructions.len()
        + items
            .iter()
            .map(|stored| stored.item.char_len())
            .sum::<usize>();
    let by_chars = u64::try_from(chars / 4).unwrap_or(u64::MAX);
    by_chars.max(reported_input.unwrap_or(0))
}

/// The instructions with the thread's summary, if any, appended.
pub(crate) fn instructions_with_summary(instructions: &str, summary: Option<&str>) -> String {
    match summary {
        Some(summary) if instructions.is_empty() => format!("{SUMMARY_HEADING}\n\n{summary}"),
        Some(summary) => format!("{instructions}\n\n{SUMMARY_HEADING}\n\n{summary}"),
        None => instructions.to_owned(),
    }
}

impl Summariser {
    /// Whether summarising is on at all: `after_tokens` is not 0.
    pub fn is_enabled(&self) -> bool {
        self.after_tokens > 0
    }

    /// Whether a request of `estimated_tokens` (see [`estimate_tokens`]) is past the threshold,
    /// so the older items should be summarised first.
    pub fn is_due(&self, estimated_tokens: u64) -> bool {
        self.is_enabled() && estimated_tokens > self.after_tokens
    }

    /// How many leading items to summarise: all but the last `keep_recent`, moved earlier so
    /// the kept part does not start with a tool result. `None` when there is nothing new to
    /// summarise.
    pub fn split_point(&self, items: &[StoredItem]) -> Option<usize> {
        let mut cut = items.len().checked_sub(self.keep_recent)?;
        while cut > 0 && matches!(items[cut].item, ThreadItem::ToolResult(_)) {
            cut -= 1;
        }
        let prefix = &items[..cut];
        let has_messages = prefix
            .iter()
            .any(|stored| !matches!(stored.item, ThreadItem::Summary(_)));
        has_messages.then_some(cut)
    }

    /// The older items as plain text for the summarising call, long parts capped.
    pub fn transcript(&self, items: &[StoredItem]) -> String {
        let cap = |text: &str| cap_chars(text, self.transcript_item_chars);
        let mut out = String::new();
        for stored in items {
            let part = match &stored.item {
                ThreadItem::Summary(text) => format!("[Earlier summary]\n{}", cap(text)),
                ThreadItem::User(text) => format!("[Analyst]\n{}", cap(text)),
                ThreadItem::Assistant(message) => {
                    let mut part = String::from("[Assistant]");
                    if !message.text.is_empty() {
                        part.push('\n');
                        part.push_str(&cap(&message.text));
                    }
                    for call in &message.tool_calls {
                        part.push_str(&format!(
                            "\n(calls {} with {})",
                            call.name,
                            cap(&call.arguments)
                        ));
                    }
                    part
                }
                ThreadItem::ToolResult(result) => format!("[Tool result]\n{}", cap(&result.output)),
            };
            out.push_str(&part);
            out.push_str("\n\n");
        }
        out
    }

    /// Asks the model for a summary of the items before the split point. `Ok(None)` when there
    /// is nothing to summarise or the model gave no text.
    pub(crate) async fn summarise(
        &self,
        client: &ModelClient,
        items: &[StoredItem],
        reasoning_effort: Option<ReasoningEffort>,
        cancel: &CancellationToken,
        budget: &mut StreamBudget,
    ) -> Result<Option<Summary>, Stop> {
        let Some(cut) = self.split_point(items) else {
            return Ok(None);
        };
        let Some(upto_seq) = cut.checked_sub(1).map(|last| items[last].seq) else {
            return Ok(None);
        };
        let request = ModelRequest {
            instructions: SUMMARY_INSTRUCTIONS.to_owned(),
            items: vec![Item::User(self.transcript(&items[..cut]))],
            tools: Vec::new(),
            reasoning_effort,
        };
        let completion = call_model(client, &request, None, cancel, budget).await?;
        let text = completion.text.trim().to_owned();
        if text.is_empty() {
            return Ok(None);
        }
        Ok(Some(Summary {
            upto_seq,
            text,
            completion,
        }))
    }
}

#[cfg(test)]
#[path = "summarise_tests.rs"]
mod tests;
