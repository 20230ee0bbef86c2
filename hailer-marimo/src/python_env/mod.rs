//! Finding a Python and preparing the managed virtual environment a kernel runs in.

pub(crate) mod command_lines;
mod locate;
mod venv;

pub use locate::{MIN_VERSION, Python, PythonVersion, find_python};
pub use venv::{ManagedVenv, VenvRequest, ensure_venv};
