//! What differs between Linux, macOS and Windows, behind small interfaces.
//!
//! Each module holds one concern. The decisions (which folder, which endpoint, which program
//! name) are pure functions of an [`Os`] and injected inputs, so every platform's cases are
//! table-tested on any host; only the thin sides that touch the system are split by `cfg`.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

pub mod container_ids;
pub mod detach;
pub mod docker_endpoint;
pub mod drives;
pub mod exit_status;
pub mod folders;
pub mod inspection;
#[cfg(windows)]
pub mod job_object;
pub mod log_follow;
pub mod os;
pub mod path_model;
pub mod private_fs;
pub mod program;
pub mod state_folder;
pub mod stop_signal;
#[cfg(windows)]
pub mod wine;

pub use os::Os;
