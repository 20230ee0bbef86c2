//! Start and drive a real marimo server (pinned at 0.24.2) without a browser.
//!
//! * [`scrub_environment`]: the environment a kernel gets, secrets withheld.
//! * [`find_python`], [`ensure_venv`]: finding a Python and preparing the managed virtual
//!   environment.
//! * [`Report`]: what long jobs report as they go (steps, counts, notes, tool output).
//! * [`launch()`]: starting an unsafe-local marimo server that only answers to our token.
//! * [`MarimoClient`]: headless sessions, execute with deadlines and recovery, cells, files.
//! * [`CellEdit`], [`NewCell`]: the Python snippets behind durable cells.
//! * [`CellSnapshot`]: reading the cells from the notebook document without marking them read.
//! * [`DrawnChart`]: drawing the charts of some cells in the kernel.
//! * `hailer_sse`: the bounded event-stream parser the client uses.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod access_token;
mod cell_snapshot;
mod chart_snippet;
mod client;
mod code_mode;
mod env_scrub;
mod error;
mod launch;
mod progress;
mod python_env;
use hailer_sse as sse;

pub use access_token::{generate_token, mask_token};

pub use cell_snapshot::{CellSnapshot, SnapshotOptions, SyntaxIssue};
pub use chart_snippet::{DrawnChart, DrawnPicture, PictureFormat};
pub use client::{
    CellChange, ClientOptions, ExecChunk, ExecOutcome, ExecOutput, KernelState, MarimoClient,
    SessionHandle, StreamKind,
};
pub use code_mode::{CellEdit, CellInfo, NewCell, python_string_literal};
pub use env_scrub::{ScrubbedEnv, scrub_environment};
pub use error::{Error, Result};
#[cfg(unix)]
pub use launch::process_tree::{
    ProcessId, descendants, end_processes, is_running, kill_now, read_stat, signal_group,
};
pub use launch::readiness::{Probe as ReadinessProbe, probe as probe_readiness};
pub use launch::{
    LaunchOptions, MARIMO_EDIT_PROGRAM, MarimoServer, PORT_PLACEHOLDER, Wrapper, free_port, launch,
};
pub use progress::{Progress, Report};
pub use python_env::{
    BasePython, Installer, InstallerChoice, ManagedVenv, PipSetting, Python, UvOptions,
    VenvRequest, choose_installer, ensure_venv, find_python,
};
