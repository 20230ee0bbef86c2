//! hailerd, Hailer's daemon.
//!
//! It listens on 127.0.0.1 only, wants its per-run token on every API call, and owns everything
//! long-lived: sessions, agent turns, kernels, notebook copies and owner locks. [`serve`] is the
//! entry point for embedding and tests; [`run`] is what the program does around it (the singleton
//! lock, the runtime file, logging and signals), and [`main`] is the `hailer` package's
//! `hailerd` binary.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod api;
mod connections;
mod daemon_state;
mod docker_status;
mod hardening;
mod logging;
mod run;
mod runtime_file;
mod serve;
mod singleton;
mod token;

pub use api::openapi::document_json as openapi_json;
pub use daemon_state::DaemonConfig;
pub use hailerd_session::HailerFolders;
pub use run::{RunArgs, main, run};
pub use serve::{HEADER_READ_TIMEOUT, serve};
pub use token::AccessToken;

/// This daemon's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
