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

pub use allow_list::Refusal;
pub use copy_back::{CopyLimits, copy_back};
pub use copy_in::copy_in;
pub use host_files::MARKER_FILE;
pub use last_copied::{CopyReport, CopyState};
#[cfg(test)]
use {
    copy_back::MAX_NEW_NOTEBOOKS,
    host_files::BACKUP_FOLDER,
    kernel_files::{KernelEntry, KernelFiles, KernelRead},
    last_copied::KernelStamp,
};

#[cfg(test)]
mod tests;
