//! The crate's errors.

use std::io;
use std::path::PathBuf;

use crate::problem::Problem;

/// Failures of file-system work such as `init`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be created, written, replaced, inspected or made private.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, as a verb phrase (`create the folder`, `create the file`).
        action: &'static str,
        /// The file or folder it was done to.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// Something other than a folder is in the way of a folder `init` makes.
    #[error("{} exists but is not a folder; move it out of the way and run `hailer init` again", path.display())]
    NotAFolder {
        /// The path that should have been a folder.
        path: PathBuf,
    },
    /// Something other than a regular file is in the way of a file `init` writes.
    #[error("{} exists but is not a regular file; move it out of the way and run `hailer init` again", path.display())]
    NotAFile {
        /// The path that should have been a regular file.
        path: PathBuf,
    },
    /// The workspace folder is still missing after `init` tried to create it.
    #[error("the workspace folder {} does not exist; create it first, or run `hailer init` in an existing folder", path.display())]
    NoWorkspace {
        /// The workspace folder `init` was asked to set up.
        path: PathBuf,
    },
}

impl Error {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The configuration cannot be used: at least one fatal problem.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", render(fatal))]
pub struct ConfigError {
    /// Every fatal problem, in file order.
    pub fatal: Vec<Problem>,
    /// Warnings found along the way.
    pub warnings: Vec<Problem>,
}

fn render(fatal: &[Problem]) -> String {
    match fatal {
        [one] => one.to_string(),
        many => {
            let mut text = format!("{} problems in the configuration:", many.len());
            for problem in many {
                text.push_str("\n- ");
                text.push_str(&problem.to_string().replace('\n', "\n  "));
            }
            text
        }
    }
}
