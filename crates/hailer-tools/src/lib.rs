//! The agent's workspace tools, apart from the daemon: what they read, how they check it and the
//! text they answer with.
//!
//! * [`periods`] describes the monthly `YY-MM <dataset>.parquet` files of the data folder from their
//!   Parquet footers;
//! * [`skills`] finds skills (`<skills_dir>/<folder>/SKILL.md`) and reads their files safely;
//! * [`context`] gathers the context notes sent with every turn, within a byte budget;
//! * [`prompts`] renders prompt templates for `/prompt`;
//! * [`web`] fetches a page from an allowed host and turns it into text;
//! * [`sections`] writes the system prompt's sections about all of the above.
//!
//! Nothing here knows about sessions, kernels or the model: the daemon wraps these functions into
//! tools and turns a [`Failure`] into the `ERROR:` text the model reads.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod failure;

pub mod context;
pub mod front_matter;
pub mod periods;
pub mod prompts;
pub mod secrets;
pub mod sections;
pub mod skills;
pub mod web;

pub use failure::Failure;
