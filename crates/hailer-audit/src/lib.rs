//! The audit trail of a workspace: `.hailer/audit.jsonl`, one JSON object per line, each
//! carrying the SHA-256 of the line before it, and its head (the last record's seq and line
//! hash) anchored in Hailer's data folder, outside the workspace.
//!
//! No async and no network: the daemon appends through [`AuditFile`] on a thread of its own,
//! the client reads and verifies the same files with [`read_trail`] and [`verify_dir`].

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod anchor;
mod chain;
mod file;
mod regular;
#[cfg(test)]
mod tests;
mod time;
mod trail;

pub use anchor::anchor_path;
pub use chain::Break;
use file::HEAD_FILE;
pub use file::{AuditFile, ROTATE_BYTES};
pub use time::{format_rfc3339, parse_since, parse_time, unix_millis_now};
pub use trail::{FILE_NAME, Line, read_trail};

use std::path::PathBuf;

/// Why the trail cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file of the trail could not be opened, read, written or renamed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, as a verb phrase (`append to`, `read`).
        action: &'static str,
        /// The file it was done to.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file of the trail is a symbolic link, a device or a folder: it was replaced.
    #[error(
        "{} is not a regular file (a link, a device or a folder stands in its place): the audit \
         trail was replaced",
        path.display()
    )]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// The anchored head does not read as one the daemon wrote.
    #[error("{} does not hold an audit trail's head: it was changed", path.display())]
    NotAHead {
        /// The anchor.
        path: PathBuf,
    },
}

impl Error {
    pub(crate) fn io(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }
}

/// The result of the trail's operations.
pub type Result<T> = std::result::Result<T, Error>;

/// The SHA-256 of `text`, in lower-case hex: what a record's `sha256` holds.
pub fn sha256_hex(text: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

/// What checking a trail found intact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// How many records the trail holds.
    pub records: usize,
    /// Whether it was checked against the head anchored in Hailer's data folder (else only
    /// against the head beside it, as for a trail brought from another machine).
    pub anchored: bool,
}

/// Checks the whole trail in `state_dir` against the head anchored at `anchor` (or, when
/// nothing is anchored there, the head kept beside the trail): what is intact, or where the
/// chain breaks and what was lost.
pub fn verify_dir(
    state_dir: &std::path::Path,
    anchor: &std::path::Path,
) -> Result<std::result::Result<Verified, Break>> {
    let anchored = match anchor::read(anchor) {
        Ok(head) => head,
        Err(error @ (Error::NotAHead { .. } | Error::NotRegular { .. })) => {
            return Ok(Err(Break {
                place: "the head kept in Hailer's data folder".to_owned(),
                message: error.to_string(),
            }));
        }
        Err(error) => return Err(error),
    };
    let lines = match read_trail(state_dir) {
        Ok(lines) => lines,
        Err(Error::NotRegular { path }) => {
            return Ok(Err(Break {
                place: path
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                message: format!(
                    "is not a regular file (a link, a device or a folder stands in its place): \
                     the trail was replaced{}",
                    anchored
                        .as_ref()
                        .map(|head| format!(
                            " and the records in it (up to record {}) are lost",
                            head.seq
                        ))
                        .unwrap_or_default()
                ),
            }));
        }
        Err(error) => return Err(error),
    };
    let is_anchored = anchored.is_some();
    let head = match anchored {
        Some(head) => Some(head),
        None => anchor::read(&state_dir.join(HEAD_FILE)).ok().flatten(),
    };
    Ok(
        chain::verify(&lines, head.as_ref()).map(|records| Verified {
            records,
            anchored: is_anchored,
        }),
    )
}
