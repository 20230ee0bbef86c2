//! The agent's workspace tools, apart from the daemon: what they read, how they check it and the
//! text they answer with.
//!
//! * [`list_periods`] describes the monthly `YY-MM <dataset>.parquet` files of the data folder
//!   from their Parquet footers;
//! * [`discover_skills`] finds skills (`<skills_dir>/<folder>/SKILL.md`) and [`read_skill_file`]
//!   reads their files safely;
//! * the context notes sent with every turn are gathered within a byte budget;
//! * [`render_prompt`] renders prompt templates for `/prompt`;
//! * [`fetch_page`] fetches a page from an allowed host and turns it into text;
//! * [`build_sections`] writes the system prompt's sections about all of the above.
//!
//! Nothing here knows about sessions, kernels or the model: the daemon wraps these functions into
//! tools and turns a [`Failure`] into the `ERROR:` text the model reads.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod failure;

mod context;
mod front_matter;
mod periods;
mod prompts;
mod secrets;
mod sections;
mod skills;
mod web;

pub use failure::Failure;
pub use periods::list_periods;
pub use prompts::{names as prompt_names, render as render_prompt};
pub use sections::{Sections, Sources as SectionSources, build as build_sections};
pub use skills::{
    attach_to_message as attach_skill, discover as discover_skills, load_skill, read_skill_file,
};
pub use web::fetch_page;
