//! What differs between Linux, macOS and Windows, behind small interfaces.
//!
//! Each module holds one concern. The decisions (which folder, which endpoint, which program
//! name) are pure functions of an [`Os`] and injected inputs, so every platform's cases are
//! table-tested on any host; only the thin sides that touch the system are split by `cfg`.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod container_ids;
mod detach;
mod docker_endpoint;
mod drives;
mod exit_status;
mod folders;
mod inspection;
#[cfg(windows)]
mod job_object;
mod log_follow;
mod os;
mod path_model;
mod private_fs;
mod program;
mod state_folder;
mod stop_signal;
#[cfg(windows)]
mod wine;

pub use container_ids::host_ids_in_containers;
pub use detach::detach;
pub use docker_endpoint::{
    Endpoint, EndpointSource, Transport, resolve_from_process as resolve_docker_endpoint,
};
pub use drives::is_mapped_network_drive;
pub use exit_status::{
    Ending, SIGKILL, describe as describe_exit, ending as exit_ending, signal_name,
};
pub use folders::{Bases, Layout, layout as folder_layout, system_bases};
pub use inspection::forbid_inspection;
#[cfg(windows)]
pub use job_object::Job;
pub use log_follow::{LineSplitter, follow_file};
pub use os::Os;
pub use path_model::{PathModel, Root, join_text};
pub use private_fs::{
    check_private, create_dir_all_private, ensure_private_dir, private_open_options,
    private_temp_file, restrict_dir, restrict_file,
};
pub use program::{executable_name, launcher_args, python_candidates, venv_python};
pub use state_folder::{
    IGNORE_FILE as STATE_IGNORE_FILE, IGNORE_TEXT as STATE_IGNORE_TEXT, NAME as STATE_FOLDER_NAME,
    ensure as ensure_state_folder, ensure_in as ensure_state_folder_in, of as state_folder_of,
};
pub use stop_signal::{Interrupts, stop_requested};
