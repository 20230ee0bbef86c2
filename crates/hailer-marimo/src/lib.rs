//! Start and drive a real marimo server (pinned at 0.24.2) without a browser.
//!
//! * [`env_scrub`]: the environment a kernel gets, secrets withheld.
//! * [`python_env`]: finding a Python and preparing the managed virtual environment.
//! * [`progress`]: what long jobs report as they go (steps, counts, notes, tool output).
//! * [`launch()`]: starting an unsafe-local marimo server that only answers to our token.
//! * [`client`]: headless sessions, execute with deadlines and recovery, cells, files.
//! * [`code_mode`]: the Python snippets behind durable cells.
//! * [`cell_snapshot`]: reading the cells from the notebook document without marking them read.
//! * [`chart_snippet`]: drawing the charts of some cells in the kernel.
//! * [`sse`]: the bounded event-stream parser the client uses.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

pub mod access_token;
pub mod cell_snapshot;
pub mod chart_snippet;
pub mod client;
pub mod code_mode;
pub mod env_scrub;
mod error;
pub mod launch;
pub mod progress;
pub mod python_env;
pub use hailer_sse as sse;

pub use cell_snapshot::{CellSnapshot, SnapshotOptions, SyntaxIssue};
pub use chart_snippet::{DrawnChart, DrawnPicture, PictureFormat};
pub use client::{
    CellChange, ClientOptions, ExecChunk, ExecOutcome, ExecOutput, KEPT_CONSOLE_BYTES, KernelState,
    MarimoClient, SessionHandle, StreamKind,
};
pub use code_mode::{CellEdit, CellInfo, NewCell};
pub use env_scrub::{ScrubbedEnv, scrub_environment};
pub use error::{Error, Result};
pub use launch::{LaunchOptions, MarimoServer, PORT_PLACEHOLDER, Wrapper, launch};
pub use progress::{Progress, Report};
pub use python_env::{
    BasePython, Installer, InstallerChoice, ManagedVenv, PipSetting, Python, UvOptions,
    VenvRequest, choose_installer, ensure_venv, find_python,
};
