//! Hailer's agent engine: what turns an analyst's message into an answer.
//!
//! - [`tool`]: the [`Tool`] trait, the ordered [`ToolRegistry`], and the cap on tool results.
//! - [`store`]: the conversation store in `.hailer/threads.sqlite`, one transaction per message.
//! - [`repair`]: making a history acceptable to strict endpoints after an interruption.
//! - [`turn`]: the turn loop over a [`hailer_model::ModelClient`], streaming [`TurnEvent`]s,
//!   cancellable at any point.
//! - [`summarise`]: condensing older turns with the same model once a thread grows large.
//! - [`credentials`]: a provider's API key, from the client's environment or where
//!   `hailer login` stored it.
//!
//! The crate knows nothing of the daemon, kernels or notebooks: the daemon registers the tools
//! and passes in the system prompt.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

pub mod blocking;
pub mod credentials;
mod error;
pub mod history;
pub mod item;
pub mod repair;
pub mod store;
pub mod summarise;
pub mod tool;
pub mod turn;
pub mod usage;

pub use credentials::{Credentials, KeySource, MissingKey};
pub use error::{Error, Result};
pub use item::{StoredItem, ThreadItem};
pub use store::{ConversationStore, Resumption, ThreadInfo};
pub use summarise::Summariser;
pub use tool::{Tool, ToolContext, ToolRegistry};
pub use turn::{EventSink, Turn, TurnEvent, TurnOutcome, TurnSettings};
pub use usage::TokenUsage;
