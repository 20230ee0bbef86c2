//! Notebook copies: a docker kernel works on its own copies of the notebooks, and only
//! allow-listed marimo notebooks travel, in either direction.
//!
//! * [`copy_in`] before the kernel is handed over;
//! * [`copy_back`] after turns, every 15 s ([`CopyLimits::background`]) and at the end
//!   ([`CopyLimits::last`]).
//!
//! Both go through marimo's file API: the kernel's notebooks folder is an in-memory file system
//! in a container with a read-only root, which the engine's archive API cannot write to.

mod allow_list;
mod copy_back;
mod copy_in;
mod host_files;
mod kernel_files;
mod last_copied;

pub use allow_list::{
    MAX_FOLDERS, MAX_NOTEBOOK_BYTES, MAX_NOTEBOOKS, Refusal, check_contents, check_name,
};
pub use copy_back::{CopyLimits, MAX_NEW_BYTES, MAX_NEW_NOTEBOOKS, copy_back};
pub use copy_in::{COPY_IN_TIME, copy_in};
pub use host_files::{BACKUP_FOLDER, MARKER_FILE};
pub use kernel_files::{KernelEntry, KernelFiles, KernelRead};
pub use last_copied::{CopyReport, CopyState, Direction, KernelStamp, digest};

#[cfg(test)]
mod tests;
