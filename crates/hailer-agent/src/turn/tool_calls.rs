//! Running the tool calls of one model reply: all at once, each in its own task, with results
//! saved in call order as soon as every earlier call has its result.

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use hailer_model::cap_chars;
use hailer_model::{ToolCall, ToolResult};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::events::{
    ARGUMENT_PREVIEW_CHARS, CODE_CHARS, EventSink, OUTPUT_CHARS, RESULT_PREVIEW_CHARS, TurnEvent,
};
use super::stop::Stop;
use crate::error::Error;
use crate::item::ThreadItem;
use crate::repair::INTERRUPTED_RESULT;
use crate::tool::{ToolContext, ToolRegistry, cap_output, is_error, tool_error};

const ARGUMENTS_HINT: &str = "Send the arguments as one JSON object, with the fields the tool's \
                              schema describes.";

/// What the batch needs from the turn.
pub(crate) struct Batch<'a> {
    pub tools: &'a ToolRegistry,
    pub max_output_chars: usize,
    pub events: &'a dyn EventSink,
    pub cancel: &'a CancellationToken,
}

/// The arguments as a JSON object, or the result telling the model what was wrong.
fn parse_arguments(call: &ToolCall) -> Result<Value, String> {
    let text = call.arguments.trim();
    if text.is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => {
            let kind = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                Value::Array(_) => "an array",
                Value::Object(_) => "an object",
            };
            Err(tool_error(
                &format!(
                    "the arguments of {} must be a JSON object, not {kind}.",
                    call.name
                ),
                ARGUMENTS_HINT,
            ))
        }
        Err(error) => Err(tool_error(
            &format!(
                "the arguments of {} are not valid JSON ({error}).",
                call.name
            ),
            ARGUMENTS_HINT,
        )),
    }
}

/// Hands over the results that are next in call order.
fn save_ready(
    calls: &[ToolCall],
    outputs: &mut [Option<String>],
    saved: &mut usize,
    save: &mut impl FnMut(ThreadItem) -> Result<(), Error>,
) -> Result<(), Stop> {
    while let Some(output) = outputs.get_mut(*saved).and_then(Option::take) {
        let call_id = calls[*saved].call_id.clone();
        save(ThreadItem::ToolResult(ToolResult { call_id, output }))?;
        *saved += 1;
    }
    Ok(())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A tool call's arguments as clients are shown them: on one line, capped.
pub fn argument_preview(call: &ToolCall) -> String {
    cap_chars(&one_line(&call.arguments), ARGUMENT_PREVIEW_CHARS)
}

/// The code a tool call runs, when its arguments are an object with a `code` string.
pub fn call_code(call: &ToolCall) -> Option<String> {
    let arguments: Value = serde_json::from_str(call.arguments.trim()).ok()?;
    let code = arguments.get("code")?.as_str()?;
    Some(cap_chars(code, CODE_CHARS))
}

/// A tool's result as clients are given it to review.
pub fn result_output(output: &str) -> String {
    cap_chars(output, OUTPUT_CHARS)
}

/// Whether a tool's output reports success, and its start as clients are shown it.
pub fn result_preview(output: &str) -> (bool, String) {
    (
        !is_error(output) && output != INTERRUPTED_RESULT,
        cap_chars(output, RESULT_PREVIEW_CHARS),
    )
}

impl Batch<'_> {
    fn finished(&self, call: &ToolCall, output: &str) {
        let (ok, result_preview) = result_preview(output);
        self.events.emit(TurnEvent::ToolCallFinished {
            call_id: call.call_id.clone(),
            name: call.name.clone(),
            ok,
            result_preview,
            output: result_output(output),
        });
    }

    /// Runs the calls; `save` is handed each result, in call order. When the turn is cancelled,
    /// calls still running are abandoned (their tokens are cancelled) and saved as interrupted.
    pub(crate) async fn run(
        &self,
        calls: &[ToolCall],
        mut save: impl FnMut(ThreadItem) -> Result<(), Error>,
    ) -> Result<(), Stop> {
        let mut outputs: Vec<Option<String>> = vec![None; calls.len()];
        let mut running = FuturesUnordered::new();
        for (index, call) in calls.iter().enumerate() {
            self.events.emit(TurnEvent::ToolCallStarted {
                call_id: call.call_id.clone(),
                name: call.name.clone(),
                argument_preview: argument_preview(call),
                code: call_code(call),
            });
            let Some(tool) = self.tools.get(&call.name) else {
                let output = self.tools.unknown_tool(&call.name);
                self.finished(call, &output);
                outputs[index] = Some(output);
                continue;
            };
            let arguments = match parse_arguments(call) {
                Ok(arguments) => arguments,
                Err(output) => {
                    self.finished(call, &output);
                    outputs[index] = Some(output);
                    continue;
                }
            };
            let ctx = ToolContext::new(call.call_id.clone(), self.cancel.child_token());
            let task = tokio::spawn(async move { tool.get().call_boxed(arguments, &ctx).await });
            running.push(async move { (index, task.await) });
        }

        let mut saved = 0;
        save_ready(calls, &mut outputs, &mut saved, &mut save)?;
        while !running.is_empty() {
            let next = tokio::select! {
                biased;
                () = self.cancel.cancelled() => None,
                next = running.next() => next,
            };
            let Some((index, joined)) = next else {
                // Cancelled: whatever has not finished is recorded as interrupted.
                for (call, output) in calls.iter().zip(outputs.iter_mut()).skip(saved) {
                    if output.is_none() {
                        self.finished(call, INTERRUPTED_RESULT);
                        *output = Some(INTERRUPTED_RESULT.to_owned());
                    }
                }
                save_ready(calls, &mut outputs, &mut saved, &mut save)?;
                return Err(Stop::Cancelled);
            };
            let call = &calls[index];
            let output = match joined {
                Ok(text) => cap_output(&text, self.max_output_chars),
                Err(failure) => {
                    tracing::warn!(tool = %call.name, %failure, "a tool stopped unexpectedly");
                    crate::tool::stopped_unexpectedly(&call.name)
                }
            };
            self.finished(call, &output);
            outputs[index] = Some(output);
            save_ready(calls, &mut outputs, &mut saved, &mut save)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn any_arguments_give_an_object_or_an_error_result(arguments in ".{0,60}") {
            match parse_arguments(&call(&arguments)) {
                Ok(value) => prop_assert!(value.is_object()),
                Err(result) => prop_assert!(is_error(&result)),
            }
        }
    }

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            call_id: "c".into(),
            name: "t".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(parse_arguments(&call("")).unwrap(), serde_json::json!({}));
        assert_eq!(
            parse_arguments(&call(r#"{"code": "1"}"#)).unwrap(),
            serde_json::json!({"code": "1"})
        );
        let broken = parse_arguments(&call(r#"{"code": "#)).unwrap_err();
        assert!(
            broken.starts_with("ERROR: the arguments of t are not valid JSON"),
            "{broken}"
        );
        assert!(broken.contains("\nSend the arguments"), "{broken}");
        let array = parse_arguments(&call("[1]")).unwrap_err();
        assert!(array.contains("not an array"), "{array}");
    }
}
