//! One daemon per user: whoever holds the lock file's OS lock is the running daemon.
//!
//! The operating system drops the lock when the process ends, however it ends, so a daemon killed
//! with SIGKILL never blocks the next one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::Path;

/// Proof that this process is the one daemon; the lock is released on drop.
#[derive(Debug)]
pub struct DaemonLock {
    _file: File,
}

/// What trying to become the daemon found.
#[derive(Debug)]
pub enum Acquired {
    Lock(DaemonLock),
    HeldByAnother,
}

/// Tries to take the daemon lock at `path` without waiting.
pub fn try_acquire(path: &Path) -> io::Result<Acquired> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    match file.try_lock() {
        Ok(()) => Ok(Acquired::Lock(DaemonLock { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(Acquired::HeldByAnother),
        Err(TryLockError::Error(error)) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_one_holder_at_a_time_and_release_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.lock");
        let first = try_acquire(&path).unwrap();
        assert!(matches!(first, Acquired::Lock(_)));
        assert!(matches!(
            try_acquire(&path).unwrap(),
            Acquired::HeldByAnother
        ));
        drop(first);
        assert!(matches!(try_acquire(&path).unwrap(), Acquired::Lock(_)));
    }
}
