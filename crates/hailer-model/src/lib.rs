//! Hailer's client for OpenAI-compatible model endpoints.
//!
//! Layered like this:
//! - The transport layer knows nothing of any model API: a reqwest client honouring proxy variables and
//!   the OS trust store, timeouts, bounded retries with backoff and jitter (never replaying a
//!   response that had started), and an SSE reader with an idle timeout.
//! - The conversation types ([`Item`], [`ModelRequest`]) and the events ([`ModelEvent`]) are our own types: the history, tools, and what a call yields.
//! - The `responses` and `chat` layers build the minimal request bodies of the two wire APIs and
//!   parse their streamed and whole replies into one [`ModelEvent`] sequence.
//! - [`LocalModel`]: a model answering inside this process (the scripted demo), behind the same
//!   client.
//! - [`ModelClient`] runs a call in a task and delivers events over a channel; dropping the
//!   receiver aborts the HTTP request. Failures are [`ModelError`]s worded for the user, with the
//!   endpoint's own words, redacted and capped.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod chat;
mod client;
mod conversation;
mod diagnose;
mod error;
mod events;
mod fixture;
mod in_process;
mod redact;
mod responses;
mod settings;
mod transport;
mod wire;

pub use client::{ClientOptions, ModelClient, ModelEvents};
pub use conversation::{
    AssistantMessage, Item, ModelRequest, ReasoningEffort, ToolCall, ToolResult, ToolSpec,
    UnknownReasoningEffort, Usage,
};
pub use diagnose::{MAX_SAID_CHARS, endpoint_words};
pub use error::{EndpointSaid, ModelError, Result};
pub use events::{Completion, ModelEvent};
pub use fixture::{events_from_json, events_from_sse};
pub use in_process::LocalModel;
pub use redact::{Redactor, cap_chars};
pub use settings::{ProviderSettings, WireApi};
pub use transport::{RetryPolicy, Timeouts};
