//! Finding a Python and preparing the managed virtual environment a kernel runs in.

pub(crate) mod command_lines;
mod installer;
mod locate;
mod pip_to_uv;
mod venv;

pub use installer::{Installer, InstallerChoice, choose_installer};
pub use locate::{Python, find_python};
pub use pip_to_uv::{PipSetting, UvOptions};
pub use venv::{BasePython, ManagedVenv, VenvRequest, ensure_venv};
