//! Reading Responses API replies: the SSE events of a streamed one, or the response object.

use serde_json::Value;

use crate::conversation::{ToolCall, Usage};
use crate::events::{ModelEvent, ReplyBuilder};
use crate::wire::{WireError, WireResult, failure, json};

fn usage(response: &Value) -> Option<Usage> {
    Usage::from_json(response.get("usage")?, "input_tokens", "output_tokens")
}

fn text_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The text of a `message` output item.
fn message_text(item: &Value) -> String {
    let parts = item.get("content").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .filter(|part| {
            matches!(
                part.get("type").and_then(Value::as_str),
                Some("output_text" | "text")
            )
        })
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect()
}

fn function_call(item: &Value) -> Option<ToolCall> {
    if item.get("type").and_then(Value::as_str) != Some("function_call") {
        return None;
    }
    let call_id = item
        .get("call_id")
        .or_else(|| item.get("id"))
        .and_then(Value::as_str)?;
    Some(ToolCall {
        call_id: call_id.to_owned(),
        name: text_of(item, "name"),
        arguments: text_of(item, "arguments"),
    })
}

/// Takes what a finished response object holds that the events did not already deliver.
fn absorb_output(response: &Value, reply: &mut ReplyBuilder, out: &mut Vec<ModelEvent>) {
    let items = response.get("output").and_then(Value::as_array);
    let mut text = String::new();
    for item in items.into_iter().flatten() {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => text.push_str(&message_text(item)),
            _ => {
                if let Some(call) = function_call(item) {
                    reply.tool_done(call, out);
                }
            }
        }
    }
    if reply.text().is_empty() {
        reply.text_delta(&text, out);
    }
}

/// A failed or cut-short response object as an error.
fn unfinished(response: &Value) -> Option<WireError> {
    match response.get("status").and_then(Value::as_str) {
        Some("failed") => Some(failure(
            response.get("error").unwrap_or(&Value::Null),
            "the response failed",
        )),
        Some("incomplete") => Some(WireError::CutOff(
            response
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .map(str::to_owned),
        )),
        _ => None,
    }
}

/// A whole response object.
pub(crate) fn parse_whole(response: &Value, out: &mut Vec<ModelEvent>) -> WireResult<()> {
    if let Some(error) = unfinished(response) {
        return Err(error);
    }
    if !response.get("output").is_some_and(Value::is_array) {
        return Err(WireError::Invalid(
            "the reply has no 'output' list".to_owned(),
        ));
    }
    let mut reply = ReplyBuilder::default();
    absorb_output(response, &mut reply, out);
    if let Some(usage) = usage(response) {
        reply.usage(usage, out);
    }
    reply.complete(out);
    Ok(())
}

/// Follows the events of a streamed response.
#[derive(Debug, Default)]
pub(crate) struct StreamParser {
    reply: ReplyBuilder,
    tool_call_begun: bool,
    complete: bool,
}

impl StreamParser {
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    pub(crate) fn tool_call_begun(&self) -> bool {
        self.tool_call_begun
    }

    pub(crate) fn event(
        &mut self,
        name: &str,
        data: &str,
        out: &mut Vec<ModelEvent>,
    ) -> WireResult<()> {
        if self.complete || data.trim() == "[DONE]" {
            return Ok(());
        }
        let event = json(data, &format!("the '{name}' event"))?;
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_owned();
        match kind.as_str() {
            "response.output_text.delta" | "response.refusal.delta" => {
                let delta = event.get("delta").and_then(Value::as_str).unwrap_or("");
                self.reply.text_delta(delta, out);
            }
            "response.output_item.added" => {
                if let Some(call) = event.get("item").and_then(function_call) {
                    self.tool_call_begun = true;
                    self.reply.tool_started(&call.call_id, &call.name, out);
                }
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                if let Some(call) = function_call(item) {
                    self.tool_call_begun = true;
                    self.reply.tool_done(call, out);
                } else if item.get("type").and_then(Value::as_str) == Some("message")
                    && self.reply.text().is_empty()
                {
                    self.reply.text_delta(&message_text(item), out);
                }
            }
            "response.completed" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                if let Some(error) = unfinished(response) {
                    return Err(error);
                }
                absorb_output(response, &mut self.reply, out);
                if let Some(usage) = usage(response) {
                    self.reply.usage(usage, out);
                }
                self.reply.complete(out);
                self.complete = true;
            }
            "response.failed" | "response.incomplete" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                return Err(unfinished(response).unwrap_or_else(|| {
                    failure(
                        response.get("error").unwrap_or(&Value::Null),
                        "the response failed",
                    )
                }));
            }
            "error" => {
                let error = event.get("error").unwrap_or(&event);
                return Err(failure(error, "the endpoint reported an error"));
            }
            _ => {}
        }
        Ok(())
    }
}
