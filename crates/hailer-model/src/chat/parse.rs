//! Reading Chat Completions replies: the chunks of a streamed one, or the completion object.

use serde_json::Value;

use crate::conversation::{ToolCall, Usage};
use crate::events::{ModelEvent, ReplyBuilder};
use crate::wire::{WireError, WireResult, cut_off, json, reported_error};

fn usage(body: &Value) -> Option<Usage> {
    Usage::from_json(body.get("usage")?, "prompt_tokens", "completion_tokens")
}

/// The first choice; replies with several choices are not asked for.
fn first_choice(body: &Value) -> Option<&Value> {
    body.get("choices")?.as_array()?.first()
}

/// Message content: a string, or a list of text parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// A stand-in id for endpoints that send tool calls without one.
fn fallback_call_id(index: usize) -> String {
    format!("call_{index}")
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.pointer(pointer).and_then(Value::as_str)
}

fn finish_reason(choice: &Value) -> Option<&str> {
    choice.get("finish_reason").and_then(Value::as_str)
}

/// A whole completion object.
pub(crate) fn parse_whole(body: &Value, out: &mut Vec<ModelEvent>) -> WireResult<()> {
    let choice = first_choice(body)
        .ok_or_else(|| WireError::Invalid("the reply has no 'choices'".to_owned()))?;
    if let Some(error) = finish_reason(choice).and_then(cut_off) {
        return Err(error);
    }
    let message = choice.get("message").unwrap_or(&Value::Null);
    let mut reply = ReplyBuilder::default();
    reply.text_delta(&content_text(message.get("content")), out);
    let calls = message.get("tool_calls").and_then(Value::as_array);
    for (index, call) in calls.into_iter().flatten().enumerate() {
        reply.tool_done(
            ToolCall {
                call_id: str_at(call, "/id").map_or_else(|| fallback_call_id(index), str::to_owned),
                name: str_at(call, "/function/name")
                    .unwrap_or_default()
                    .to_owned(),
                arguments: str_at(call, "/function/arguments")
                    .unwrap_or_default()
                    .to_owned(),
            },
            out,
        );
    }
    if let Some(usage) = usage(body) {
        reply.usage(usage, out);
    }
    reply.complete(out);
    Ok(())
}

/// A tool call being assembled from chunks.
#[derive(Debug, Default)]
struct PartialCall {
    call_id: Option<String>,
    name: String,
    arguments: String,
    announced: bool,
}

/// Follows the chunks of a streamed completion. It is complete at `[DONE]` after a
/// `finish_reason`.
#[derive(Debug, Default)]
pub(crate) struct StreamParser {
    reply: ReplyBuilder,
    calls: Vec<PartialCall>,
    finished: bool,
    complete: bool,
}

impl StreamParser {
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    pub(crate) fn tool_call_begun(&self) -> bool {
        !self.calls.is_empty()
    }

    pub(crate) fn event(&mut self, data: &str, out: &mut Vec<ModelEvent>) -> WireResult<()> {
        if self.complete {
            return Ok(());
        }
        if data.trim() == "[DONE]" {
            if !self.finished {
                return Err(WireError::Incomplete(
                    "the stream ended without a finish reason".to_owned(),
                ));
            }
            self.reply.complete(out);
            self.complete = true;
            return Ok(());
        }
        let chunk = json(data, "a streamed chunk")?;
        if let Some(error) = reported_error(&chunk) {
            return Err(error);
        }
        if let Some(choice) = first_choice(&chunk) {
            if let Some(error) = finish_reason(choice).and_then(cut_off) {
                return Err(error);
            }
            self.choice(choice, out);
        }
        if let Some(usage) = usage(&chunk) {
            self.reply.usage(usage, out);
        }
        Ok(())
    }

    fn choice(&mut self, choice: &Value, out: &mut Vec<ModelEvent>) {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        self.reply
            .text_delta(&content_text(delta.get("content")), out);
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        for (position, piece) in calls.into_iter().flatten().enumerate() {
            self.tool_call_piece(position, piece, out);
        }
        let finish = choice
            .get("finish_reason")
            .filter(|reason| !reason.is_null());
        if finish.is_some() && !self.finished {
            self.finished = true;
            for (index, call) in self.calls.iter_mut().enumerate() {
                let call_id = call
                    .call_id
                    .clone()
                    .unwrap_or_else(|| fallback_call_id(index));
                let done = ToolCall {
                    call_id,
                    name: std::mem::take(&mut call.name),
                    arguments: std::mem::take(&mut call.arguments),
                };
                self.reply.tool_done(done, out);
            }
        }
    }

    fn tool_call_piece(&mut self, position: usize, piece: &Value, out: &mut Vec<ModelEvent>) {
        // Bound the index so a hostile stream cannot make us allocate without limit.
        let index = piece
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|index| usize::try_from(index).ok())
            .unwrap_or(position)
            .min(self.calls.len());
        if index == self.calls.len() {
            self.calls.push(PartialCall::default());
        }
        let Some(call) = self.calls.get_mut(index) else {
            return;
        };
        if let Some(id) = str_at(piece, "/id").filter(|id| !id.is_empty()) {
            call.call_id.get_or_insert_with(|| id.to_owned());
        }
        if let Some(name) = str_at(piece, "/function/name") {
            call.name.push_str(name);
        }
        if let Some(arguments) = str_at(piece, "/function/arguments") {
            call.arguments.push_str(arguments);
        }
        // Announced once both the name and the id are known: an endpoint may send the name
        // before the id, and a call started under a stand-in id would be started twice. A call
        // that never gets an id is announced when the reply finishes, under its stand-in.
        if !call.announced
            && !call.name.is_empty()
            && let Some(call_id) = &call.call_id
        {
            call.announced = true;
            self.reply.tool_started(call_id, &call.name, out);
        }
    }
}
