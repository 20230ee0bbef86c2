//! The docker kernel runtime: a marimo kernel in a container with no network, the data folder
//! read-only, a read-only root, no capabilities and a non-root user, reached through a small
//! forwarder published on 127.0.0.1 only.
//!
//! * [`Engine`]: connecting to the Docker engine the way the docker CLI finds it.
//! * [`ensure_image`], [`build`], [`pull`]: the kernel image: checking its contract, building
//!   it, downloading it.
//! * [`DockerKernel`]: starting and stopping one kernel, and [`cleanup_leftovers`] for the
//!   leftovers of killed sessions.
//! * [`copy_in`], [`copy_back`]: the notebooks copied into a kernel and back.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod engine;
mod error;
mod image;
mod labels;
mod notebook_copies;
mod runtime;

pub use engine::endpoint::resolve_from_process as resolve_endpoint;
pub use engine::{Endpoint, EndpointSource, Engine};
pub use error::{Error, Result};
pub use image::host_config::{
    HostInputs, HostSettings, discover as discover_host_settings, pip_install_settings,
    read_host_file,
};
pub use image::{
    BuildOptions, CA_SECRET, EXPORTED_SECRETS_FOLDER, PIP_CONF_SECRET, build, default_image_name,
    ensure_image, export_context, gather, image_contract, image_digest, image_labels, pull,
};
pub use labels::{
    CONTRACT_LABEL, OWNER_LABEL, ROLE_LABEL, WORKSPACE_LABEL, workspace_filter, workspace_id,
};
pub use notebook_copies::{
    CopyLimits, CopyReport, CopyState, MARKER_FILE as COPIES_MARKER_FILE, Refusal as CopyRefusal,
    copy_back, copy_in,
};
pub use runtime::{
    DockerKernel, DockerSpec, Ended, ImageFacts, KernelFacts, MemoryCheck, Removal,
    cleanup_all_leftovers, cleanup_leftovers, image_facts, kernel_command, kernel_user,
    list_kernels, list_workspace_objects, stop_workspace,
};
