//! Finding a Python and preparing the managed virtual environment a kernel runs in.

pub(crate) mod command_lines;
mod installer;
mod locate;
mod pip_to_uv;
mod venv;

pub use installer::{Installer, InstallerChoice, choose_installer};
pub use locate::{MIN_VERSION, Python, PythonVersion, find_python};
pub use pip_to_uv::{PipSetting, UvOptions, translate as pip_settings_for_uv};
pub use venv::{BasePython, ManagedVenv, VenvRequest, ensure_venv};
