//! Hailer's agent engine: what turns an analyst's message into an answer.
//!
//! - [`Tool`]: the tool trait, the ordered [`ToolRegistry`], and the cap on tool results
//!   ([`cap_output`]).
//! - [`ConversationStore`]: the conversation store in `.hailer/threads.sqlite`, one transaction
//!   per message.
//! - Repair: making a history acceptable to strict endpoints after an interruption
//!   ([`check_history`] says what they would reject).
//! - [`Turn`]: the turn loop over a [`hailer_model::ModelClient`], streaming [`TurnEvent`]s,
//!   cancellable at any point.
//! - [`Summariser`]: condensing older turns with the same model once a thread grows large.
//! - [`Credentials`]: a provider's API key, from the client's environment or where
//!   `hailer login` stored it.
//!
//! The crate knows nothing of the daemon, kernels or notebooks: the daemon registers the tools
//! and passes in the system prompt.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod blocking;
mod credentials;
mod error;
mod history;
mod item;
mod repair;
mod store;
mod summarise;
mod tool;
mod turn;
mod usage;

pub use blocking::off_the_worker;

pub use credentials::{
    CREDENTIALS_FILE, Credentials, CredentialsStore, KeySource, MissingKey, SecretBackend, key_user,
};
pub use error::{Error, Result};
pub use history::past_turns;
pub use item::{StoredItem, ThreadItem};
pub use repair::{INTERRUPTED_RESULT, check as check_history};
pub use store::{ConversationStore, Resumption, STATE_FOLDER, STORE_FILE, ThreadInfo};
pub use summarise::{KEEP_RECENT_ITEMS, Summariser, estimate_tokens};
pub use tool::{
    DuplicateTool, Tool, ToolContext, ToolRegistry, cap_output, is_error, no_arguments, tool_error,
};
pub use turn::{
    EventSink, Turn, TurnEvent, TurnOutcome, TurnSettings, argument_preview, call_code,
    result_output, result_preview,
};
pub use usage::{TokenUsage, describe as describe_usage};
