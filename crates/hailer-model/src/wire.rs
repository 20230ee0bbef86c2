//! What both wire APIs share: failures found in a reply and the parser dispatch.

use serde_json::Value;

use crate::chat;
use crate::events::ModelEvent;
use crate::responses;
use crate::settings::WireApi;

/// Something wrong in a 2xx reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum WireError {
    /// The endpoint reported a failure inside the reply.
    Failed {
        code: Option<String>,
        message: String,
    },
    /// The reply ended before its completion marker.
    Incomplete(String),
    /// The endpoint ended the reply early and said so: `finish_reason: "length"` (Chat) or
    /// `status: "incomplete"` (Responses), with the reason when one was given.
    CutOff(Option<String>),
    /// The reply is not what the wire API describes.
    Invalid(String),
}

pub(crate) type WireResult<T> = Result<T, WireError>;

/// Parses an event's data as JSON.
pub(crate) fn json(data: &str, what: &str) -> WireResult<Value> {
    serde_json::from_str(data)
        .map_err(|error| WireError::Invalid(format!("{what} is not valid JSON ({error})")))
}

/// Reads an endpoint-reported error object: `{"code": .., "message": ..}`.
pub(crate) fn failure(error: &Value, fallback: &str) -> WireError {
    let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
    let message = text("message")
        .or_else(|| error.as_str().map(str::to_owned))
        .unwrap_or_else(|| {
            if error.is_null() {
                fallback.to_owned()
            } else {
                error.to_string()
            }
        });
    WireError::Failed {
        code: text("code").or_else(|| text("type")),
        message,
    }
}

/// A finish reason (Chat) or incomplete reason (Responses) that means the reply was cut off.
pub(crate) fn cut_off(reason: &str) -> Option<WireError> {
    matches!(
        reason,
        "length" | "max_tokens" | "max_output_tokens" | "content_filter"
    )
    .then(|| WireError::CutOff(Some(reason.to_owned())))
}

/// The reply's error, if the body carries a non-null `error`.
pub(crate) fn reported_error(body: &Value) -> Option<WireError> {
    body.get("error")
        .filter(|error| !error.is_null())
        .map(|error| failure(error, "the endpoint reported an error"))
}

/// Parses a streamed reply event by event.
#[derive(Debug)]
pub(crate) enum StreamParser {
    Responses(responses::StreamParser),
    Chat(chat::StreamParser),
}

impl StreamParser {
    pub(crate) fn new(wire: WireApi) -> Self {
        match wire {
            WireApi::Responses => Self::Responses(responses::StreamParser::default()),
            WireApi::Chat => Self::Chat(chat::StreamParser::default()),
        }
    }

    /// Handles one SSE event, appending what it yields to `out`.
    pub(crate) fn event(
        &mut self,
        name: &str,
        data: &str,
        out: &mut Vec<ModelEvent>,
    ) -> WireResult<()> {
        match self {
            Self::Responses(parser) => parser.event(name, data, out),
            Self::Chat(parser) => parser.event(data, out),
        }
    }

    /// Whether the completion marker arrived (and `Completed` was emitted).
    pub(crate) fn is_complete(&self) -> bool {
        match self {
            Self::Responses(parser) => parser.is_complete(),
            Self::Chat(parser) => parser.is_complete(),
        }
    }

    /// Whether a tool call had begun: such a reply can never be resumed.
    pub(crate) fn tool_call_begun(&self) -> bool {
        match self {
            Self::Responses(parser) => parser.tool_call_begun(),
            Self::Chat(parser) => parser.tool_call_begun(),
        }
    }
}

/// Parses a whole (non-streamed) reply.
pub(crate) fn parse_whole(wire: WireApi, body: &[u8]) -> WireResult<Vec<ModelEvent>> {
    let body: Value = serde_json::from_slice(body).map_err(|error| {
        if error.is_eof() {
            WireError::Incomplete("the reply ended in the middle of its JSON body".to_owned())
        } else {
            WireError::Invalid(format!("the reply is not valid JSON ({error})"))
        }
    })?;
    if let Some(error) = reported_error(&body) {
        return Err(error);
    }
    let mut out = Vec::new();
    match wire {
        WireApi::Responses => responses::parse_whole(&body, &mut out)?,
        WireApi::Chat => chat::parse_whole(&body, &mut out)?,
    }
    Ok(out)
}
