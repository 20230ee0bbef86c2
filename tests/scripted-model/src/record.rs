//! What the server saw and did: recorded requests and the fate of each streamed body.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::validate::Wire;

/// One model request as received.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RecordedRequest {
    /// The API the request came in on, by its route.
    pub wire: Wire,
    /// The request path as sent, such as `/v1/responses` or `/chat/completions`.
    pub path: String,
    /// The query string without the `?`; `None` when the URL had none.
    pub query: Option<String>,
    /// Header names in lower case; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or the raw text as a JSON string when it was not JSON.
    pub body: Value,
}

impl RecordedRequest {
    /// The value of header `name`, matched without regard to case; `None` when it was not
    /// sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// The token of an `Authorization: Bearer` header.
    pub fn bearer_token(&self) -> Option<&str> {
        self.header("authorization")
            .and_then(|value| value.strip_prefix("Bearer "))
    }

    /// The top-level keys of the body.
    pub fn body_keys(&self) -> BTreeSet<String> {
        self.body
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The conversation items: `input` (Responses) or `messages` (Chat).
    pub fn conversation(&self) -> &[Value] {
        let key = match self.wire {
            Wire::Responses => "input",
            Wire::Chat => "messages",
        };
        self.body
            .get(key)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }
}

/// How a reply body's delivery went.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryOutcome {
    /// The body is still being sent (or a stall is under way).
    InProgress,
    /// Every piece of the body was handed to the connection.
    Finished,
    /// The script cut or ended the body early.
    Interrupted,
    /// The client closed the connection before the body was complete.
    ClientGone,
}

/// The delivery of one reply body.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Delivery {
    /// Index into the recorded requests.
    pub request_index: usize,
    /// How many pieces went out: SSE frames when streaming; for a body sent whole, 1 (the
    /// whole body, or its first half when interrupted) or 0 when the client left first.
    pub frames_sent: usize,
    /// How the delivery went, or [`DeliveryOutcome::InProgress`] while it runs.
    pub outcome: DeliveryOutcome,
}
