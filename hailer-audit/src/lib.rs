//! The audit trail of a workspace: `.hailer/audit.jsonl`, one JSON object per line, each
//! carrying the SHA-256 of the line before it.
//!
//! No async and no network: the daemon appends through [`AuditFile`] on a thread of its own,
//! the client reads and verifies the same files with [`read_trail`] and [`verify`].

#![warn(missing_docs)]

mod chain;
mod file;
#[cfg(test)]
mod tests;
mod time;
mod trail;

pub use chain::{Break, GENESIS, line_hash, verify};
pub use file::{AuditFile, HEAD_FILE, ROTATE_BYTES};
pub use time::{format_rfc3339, parse_since, parse_time, unix_millis_now};
pub use trail::{FILE_NAME, Line, read_trail, trail_files};

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

/// Checks the whole trail in `state_dir`, with the head the writer keeps: the number of records,
/// or where the chain breaks.
pub fn verify_dir(state_dir: &std::path::Path) -> Result<std::result::Result<usize, Break>> {
    let lines = read_trail(state_dir)?;
    let head = chain::read_head(&state_dir.join(HEAD_FILE));
    Ok(verify(&lines, head))
}
