//! `.hailer/owner-<16 hex>.lock`: held with an OS lock for as long as a session lives.
//!
//! Objects a session creates outside this process (containers, networks) are labelled with
//! the lock's id; a later start can tell a live owner (someone holds the lock) from a dead one.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// A held owner lock; released and deleted on drop.
#[derive(Debug)]
pub struct OwnerLock {
    /// The lock's id (16 hex digits), the label of everything the session makes outside this process.
    pub id: String,
    path: PathBuf,
    _file: File,
}

impl OwnerLock {
    /// Creates and locks a fresh owner lock in the workspace's `.hailer/` folder.
    pub fn acquire(state_dir: &Path) -> std::io::Result<Self> {
        hailer_platform::ensure_state_folder(state_dir)?;
        let mut bytes = [0u8; 8];
        rand::fill(&mut bytes);
        let id = hex::encode(bytes);
        let path = state_dir.join(format!("owner-{id}.lock"));
        let file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(std::io::Error::other("the new owner lock is held already"));
            }
            Err(TryLockError::Error(error)) => return Err(error),
        }
        Ok(Self {
            id,
            path,
            _file: file,
        })
    }

    /// Whether some process holds the owner lock at `path`.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = OpenOptions::new().write(true).open(path) else {
            return false;
        };
        matches!(file.try_lock(), Err(TryLockError::WouldBlock))
    }

    /// Whether the owner lock at `path` is certainly not held: the file is missing, or this
    /// process could take its lock. A lock file this process cannot open (another user's
    /// workspace) counts as held, so nothing of someone else's is ever taken for a leftover.
    pub fn is_gone(path: &Path) -> bool {
        match OpenOptions::new().write(true).open(path) {
            Ok(file) => file.try_lock().is_ok(),
            Err(error) => error.kind() == std::io::ErrorKind::NotFound,
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OwnerLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn held_while_alive_and_gone_after() {
        let dir = tempfile::tempdir().unwrap();
        let lock = OwnerLock::acquire(dir.path()).unwrap();
        assert_eq!(lock.id.len(), 16);
        let path = lock.path().to_path_buf();
        assert!(OwnerLock::is_held(&path));
        assert!(!OwnerLock::is_gone(&path));
        drop(lock);
        assert!(!path.exists());
        assert!(!OwnerLock::is_held(&path));
        assert!(OwnerLock::is_gone(&path));
        std::fs::write(&path, "").unwrap();
        assert!(OwnerLock::is_gone(&path));
    }
}
