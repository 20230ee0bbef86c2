//! What the server saw and did: recorded requests and the fate of each streamed body.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::validate::Wire;

/// One model request as received.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RecordedRequest {
    pub wire: Wire,
    pub path: String,
    pub query: Option<String>,
    /// Header names in lower case; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or the raw text as a JSON string when it was not JSON.
    pub body: Value,
}

impl RecordedRequest {
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
    InProgress,
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
    pub frames_sent: usize,
    pub outcome: DeliveryOutcome,
}
