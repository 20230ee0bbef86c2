//! The docker kernel runtime: a marimo kernel in a container with no network, the data folder
//! read-only, a read-only root, no capabilities and a non-root user, reached through a small
//! forwarder published on 127.0.0.1 only.
//!
//! * [`engine`]: connecting to the Docker engine the way the docker CLI finds it.
//! * [`image`]: the kernel image: checking its contract, building it, downloading it.
//! * [`runtime`]: starting and stopping one kernel, and the leftovers of killed sessions.
//! * [`notebook_copies`]: the notebooks copied into a kernel and back.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

pub mod engine;
mod error;
pub mod image;
pub mod labels;
pub mod notebook_copies;
pub mod runtime;

pub use engine::Engine;
pub use error::{Error, Result};
pub use image::{BuildOptions, build, default_image_name, ensure_image, export_context, pull};
