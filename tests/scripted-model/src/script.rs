//! The script: a queue of steps the server plays back, one per model request.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A queue of steps; each model request consumes the next one.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Script {
    /// The steps in the order requests consume them; once they run out, every further model
    /// request gets a 500 until more are pushed.
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// What the server does with one model request.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Answer with a reply (possibly slowed down or interrupted).
    Reply(Reply),
    /// Answer with an HTTP error status and an OpenAI-shaped JSON error body.
    Fault(Fault),
}

/// A model reply: text, tool calls and usage, plus how it is delivered.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Reply {
    /// The assistant text; empty for a reply that only calls tools (then no text is sent).
    pub text: String,
    /// Number of text deltas the text is split into when streaming (at least one).
    pub deltas: usize,
    /// Pause between two text deltas, in milliseconds.
    pub delta_delay_ms: u64,
    /// When non-zero, text deltas follow a fixed schedule of this many per second (delta `i` is
    /// sent `i / rate` seconds after the first), for rates finer than a millisecond pause.
    pub deltas_per_second: u64,
    /// Tool calls sent after the text, in order.
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Token usage to report; `None` reports none.
    pub usage: Option<ScriptedUsage>,
    /// Pause before the response headers are sent, in milliseconds.
    pub headers_delay_ms: u64,
    /// Where and how delivery of the body breaks off or stalls; `None` delivers it whole.
    pub interruption: Option<Interruption>,
    /// Ends the reply as cut off by the output-token limit: `finish_reason: "length"` on Chat,
    /// `status: "incomplete"` on Responses.
    pub cut_off: bool,
}

impl Default for Reply {
    fn default() -> Self {
        Self {
            text: String::new(),
            deltas: 1,
            delta_delay_ms: 0,
            deltas_per_second: 0,
            tool_calls: Vec::new(),
            usage: Some(ScriptedUsage::default()),
            headers_delay_ms: 0,
            interruption: None,
            cut_off: false,
        }
    }
}

/// One tool call in a reply. `arguments` is sent as its JSON text; a JSON string is sent verbatim,
/// which lets a script send arguments that are not valid JSON.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScriptedToolCall {
    /// The call id to send; `None` makes one up, `call_<request number>_<index>`.
    #[serde(default)]
    pub call_id: Option<String>,
    /// The name of the tool the model calls.
    pub name: String,
    /// The arguments; `null` (the default) is sent as `{}`.
    #[serde(default)]
    pub arguments: Value,
}

impl ScriptedToolCall {
    /// The arguments as the text the wire carries.
    pub fn arguments_text(&self) -> String {
        match &self.arguments {
            Value::String(raw) => raw.clone(),
            Value::Null => "{}".to_owned(),
            other => other.to_string(),
        }
    }
}

/// Token counts a reply reports; the total sent is their sum. The default is 100 in, 20 out.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ScriptedUsage {
    /// Input (prompt) tokens: `input_tokens` on Responses, `prompt_tokens` on Chat.
    pub input: u64,
    /// Output (completion) tokens: `output_tokens` on Responses, `completion_tokens` on Chat.
    pub output: u64,
}

impl Default for ScriptedUsage {
    fn default() -> Self {
        Self {
            input: 100,
            output: 20,
        }
    }
}

/// Where and how a reply's delivery is interrupted.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Interruption {
    /// Where in a streamed body it happens; a body sent whole breaks half-way (or, for a
    /// stall, waits before it is sent) whatever this says.
    pub at: CutPoint,
    /// What happens there.
    pub kind: InterruptionKind,
}

/// Where in a streamed reply an interruption happens. A point the reply never reaches (more
/// deltas than it has, no tool call) falls back to the last frame before the completion, and
/// no point is ever past it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CutPoint {
    /// After this many text deltas (0: right after the opening events). Without a streamed reply, the
    /// body is interrupted half-way.
    AfterDeltas(usize),
    /// Right after the first tool call's opening event.
    AfterToolCallStarted,
}

/// What an interruption does to the reply body.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InterruptionKind {
    /// The connection is torn down mid-body.
    Abort,
    /// The body ends cleanly but early, without the completion events.
    EndEarly,
    /// Nothing is sent for this many milliseconds, then delivery goes on.
    Stall {
        /// How long nothing is sent, in milliseconds.
        ms: u64,
    },
}

/// An HTTP error answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Fault {
    /// The HTTP status; one that is not a valid status code is sent as 500.
    pub status: u16,
    /// The error message; `{api_key}` is replaced by the bearer token the request carried, as some real
    /// endpoints echo it.
    #[serde(default)]
    pub message: String,
    /// The `code` of the JSON error; `None` sends `null`.
    #[serde(default)]
    pub code: Option<String>,
    /// A `Retry-After` header, in seconds; `None` sends none.
    #[serde(default)]
    pub retry_after_secs: Option<u64>,
    /// A body sent instead of the JSON error (e.g. a proxy's HTML page).
    #[serde(default)]
    pub raw_body: Option<String>,
}

impl Fault {
    /// A fault with a typical message for the status.
    pub fn status(status: u16) -> Self {
        let message = match status {
            401 => "Incorrect API key provided.",
            403 => "You are not allowed to sample from this model.",
            404 => "Not found.",
            429 => "Rate limit reached. Please try again later.",
            500..=599 => "The server had an error while processing your request.",
            _ => "The request was rejected.",
        };
        Self {
            status,
            message: message.to_owned(),
            code: None,
            retry_after_secs: None,
            raw_body: None,
        }
    }

    /// The same fault with this error message (`{api_key}` in it becomes the request's
    /// bearer token).
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// The same fault with this `code` in its JSON error.
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// The same fault with a `Retry-After` header of `seconds`.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_secs = Some(seconds);
        self
    }

    /// The same fault with `body` sent as it is instead of the JSON error.
    pub fn raw_body(mut self, body: impl Into<String>) -> Self {
        self.raw_body = Some(body.into());
        self
    }
}

impl Reply {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A reply holding one tool call and no text.
    pub fn tool_call(name: impl Into<String>, arguments: Value) -> Self {
        Self::default().with_tool_call(name, arguments)
    }

    /// Adds a tool call with a made-up call id after any already there.
    pub fn with_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            call_id: None,
            name: name.into(),
            arguments,
        });
        self
    }

    /// Adds a tool call with the call id `call_id` after any already there.
    pub fn with_tool_call_id(
        mut self,
        call_id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            call_id: Some(call_id.into()),
            name: name.into(),
            arguments,
        });
        self
    }

    /// Ends the reply as cut off by the output-token limit.
    pub fn cut_off(mut self) -> Self {
        self.cut_off = true;
        self
    }

    /// Streams the text in `deltas` nearly equal pieces (0 counts as 1; never more pieces
    /// than characters).
    pub fn in_deltas(mut self, deltas: usize) -> Self {
        self.deltas = deltas.max(1);
        self
    }

    /// Pauses this long between two text deltas, rounded down to whole milliseconds.
    pub fn delta_delay(mut self, delay: Duration) -> Self {
        self.delta_delay_ms = millis(delay);
        self
    }

    /// Sends the text deltas on a fixed schedule of `rate` per second.
    pub fn deltas_per_second(mut self, rate: u64) -> Self {
        self.deltas_per_second = rate;
        self
    }

    /// Reports `input` and `output` tokens instead of the default 100 and 20.
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some(ScriptedUsage { input, output });
        self
    }

    /// Reports no usage: `usage` is null or left out.
    pub fn no_usage(mut self) -> Self {
        self.usage = None;
        self
    }

    /// Waits this long (whole milliseconds) before sending the response headers.
    pub fn delay_headers(mut self, delay: Duration) -> Self {
        self.headers_delay_ms = millis(delay);
        self
    }

    /// Tears the connection down after `deltas` text deltas.
    pub fn cut_after_deltas(self, deltas: usize) -> Self {
        self.interrupt(CutPoint::AfterDeltas(deltas), InterruptionKind::Abort)
    }

    /// Tears the connection down right after the first tool call's opening event.
    pub fn cut_after_tool_call_started(self) -> Self {
        self.interrupt(CutPoint::AfterToolCallStarted, InterruptionKind::Abort)
    }

    /// Ends the body cleanly after `deltas` text deltas, without the completion events.
    pub fn end_early_after_deltas(self, deltas: usize) -> Self {
        self.interrupt(CutPoint::AfterDeltas(deltas), InterruptionKind::EndEarly)
    }

    /// Sends nothing for `stall` (whole milliseconds) after `deltas` text deltas, then goes on.
    pub fn stall_after_deltas(self, deltas: usize, stall: Duration) -> Self {
        let ms = millis(stall);
        self.interrupt(
            CutPoint::AfterDeltas(deltas),
            InterruptionKind::Stall { ms },
        )
    }

    /// Interrupts delivery at `at` in the way `kind` says, replacing any earlier interruption.
    pub fn interrupt(mut self, at: CutPoint, kind: InterruptionKind) -> Self {
        self.interruption = Some(Interruption { at, kind });
        self
    }
}

impl Script {
    /// A script with no steps: every model request gets a 500 until steps are pushed.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `step`.
    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    /// Appends a step answering with `reply`.
    pub fn reply(self, reply: Reply) -> Self {
        self.step(Step::Reply(reply))
    }

    /// Appends a step answering with `fault`.
    pub fn fault(self, fault: Fault) -> Self {
        self.step(Step::Fault(fault))
    }

    /// A step answering with this text.
    pub fn reply_text(self, text: impl Into<String>) -> Self {
        self.reply(Reply::text(text))
    }

    /// A step answering with one tool call.
    pub fn tool_call(self, name: impl Into<String>, arguments: Value) -> Self {
        self.reply(Reply::tool_call(name, arguments))
    }

    /// A step failing with this status and a typical message.
    pub fn fail(self, status: u16) -> Self {
        self.fault(Fault::status(status))
    }

    /// A step failing with this status and message.
    pub fn fail_with(self, status: u16, message: impl Into<String>) -> Self {
        self.fault(Fault::status(status).message(message))
    }

    /// Parses a script from its JSON text.
    pub fn from_json(text: &str) -> serde_json::Result<Self> {
        serde_json::from_str(text)
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn built_scripts_survive_a_trip_through_json() {
        let script = Script::new()
            .tool_call("marimo_execute", json!({"code": "print(1)"}))
            .reply(
                Reply::text("done")
                    .in_deltas(3)
                    .delta_delay(Duration::from_millis(20))
                    .no_usage()
                    .cut_after_tool_call_started(),
            )
            .fault(
                Fault::status(429)
                    .retry_after(2)
                    .code("rate_limit_exceeded"),
            );
        let text = serde_json::to_string(&script).unwrap();
        assert_eq!(Script::from_json(&text).unwrap(), script);
    }

    #[test]
    fn a_minimal_json_reply_gets_the_defaults() {
        let script = Script::from_json(r#"{"steps":[{"reply":{"text":"hi"}}]}"#).unwrap();
        assert_eq!(script, Script::new().reply_text("hi"));
    }
}
