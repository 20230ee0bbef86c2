//! The script: a queue of steps the server plays back, one per model request.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A queue of steps; each model request consumes the next one.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Script {
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
    pub text: String,
    /// Number of text deltas the text is split into when streaming (at least one).
    pub deltas: usize,
    /// Pause between two text deltas, in milliseconds.
    pub delta_delay_ms: u64,
    /// When non-zero, text deltas follow a fixed schedule of this many per second (delta `i` is
    /// sent `i / rate` seconds after the first), for rates finer than a millisecond pause.
    pub deltas_per_second: u64,
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Token usage to report; `None` reports none.
    pub usage: Option<ScriptedUsage>,
    /// Pause before the response headers are sent, in milliseconds.
    pub headers_delay_ms: u64,
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
    #[serde(default)]
    pub call_id: Option<String>,
    pub name: String,
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

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ScriptedUsage {
    pub input: u64,
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
    pub at: CutPoint,
    pub kind: InterruptionKind,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CutPoint {
    /// After this many text deltas (0: right after the opening events). Without a streamed reply, the
    /// body is interrupted half-way.
    AfterDeltas(usize),
    /// Right after the first tool call's opening event.
    AfterToolCallStarted,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum InterruptionKind {
    /// The connection is torn down mid-body.
    Abort,
    /// The body ends cleanly but early, without the completion events.
    EndEarly,
    /// Nothing is sent for this many milliseconds, then delivery goes on.
    Stall { ms: u64 },
}

/// An HTTP error answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Fault {
    pub status: u16,
    /// The error message; `{api_key}` is replaced by the bearer token the request carried, as some real
    /// endpoints echo it.
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub code: Option<String>,
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

    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_secs = Some(seconds);
        self
    }

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

    pub fn with_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ScriptedToolCall {
            call_id: None,
            name: name.into(),
            arguments,
        });
        self
    }

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

    pub fn in_deltas(mut self, deltas: usize) -> Self {
        self.deltas = deltas.max(1);
        self
    }

    pub fn delta_delay(mut self, delay: Duration) -> Self {
        self.delta_delay_ms = millis(delay);
        self
    }

    /// Sends the text deltas on a fixed schedule of `rate` per second.
    pub fn deltas_per_second(mut self, rate: u64) -> Self {
        self.deltas_per_second = rate;
        self
    }

    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some(ScriptedUsage { input, output });
        self
    }

    pub fn no_usage(mut self) -> Self {
        self.usage = None;
        self
    }

    pub fn delay_headers(mut self, delay: Duration) -> Self {
        self.headers_delay_ms = millis(delay);
        self
    }

    pub fn cut_after_deltas(self, deltas: usize) -> Self {
        self.interrupt(CutPoint::AfterDeltas(deltas), InterruptionKind::Abort)
    }

    pub fn cut_after_tool_call_started(self) -> Self {
        self.interrupt(CutPoint::AfterToolCallStarted, InterruptionKind::Abort)
    }

    pub fn end_early_after_deltas(self, deltas: usize) -> Self {
        self.interrupt(CutPoint::AfterDeltas(deltas), InterruptionKind::EndEarly)
    }

    pub fn stall_after_deltas(self, deltas: usize, stall: Duration) -> Self {
        let ms = millis(stall);
        self.interrupt(
            CutPoint::AfterDeltas(deltas),
            InterruptionKind::Stall { ms },
        )
    }

    pub fn interrupt(mut self, at: CutPoint, kind: InterruptionKind) -> Self {
        self.interruption = Some(Interruption { at, kind });
        self
    }
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn step(mut self, step: Step) -> Self {
        self.steps.push(step);
        self
    }

    pub fn reply(self, reply: Reply) -> Self {
        self.step(Step::Reply(reply))
    }

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
