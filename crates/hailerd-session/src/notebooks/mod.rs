//! A workspace's notebooks: finding them by name, creating them from templates, and remembering
//! the active one.

mod names;
mod notebook_json;

pub use names::NotebookError;
pub(crate) use names::{list, resolve, slug_file_name};
pub use notebook_json::NotebookState;
