//! One daemon per user: whoever holds the lock file's OS lock is the running daemon.
//!
//! The operating system drops the lock when the process ends, however it ends, so a daemon killed
//! with SIGKILL never blocks the next one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// Proof that this process is the one daemon; the lock is released on drop.
#[derive(Debug)]
pub(crate) struct DaemonLock {
    _file: File,
}

/// What trying to become the daemon found.
#[derive(Debug)]
pub(crate) enum Acquired {
    /// This process is the daemon while it holds the lock.
    Lock(DaemonLock),
    /// Another process holds it: a daemon runs already.
    HeldByAnother,
}

/// Tries to take the daemon lock at `path` without waiting.
pub(crate) fn try_acquire(path: &Path) -> io::Result<Acquired> {
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

/// How long a starting daemon waits for one that is on its way out.
pub(crate) const LEAVING_PATIENCE: Duration = Duration::from_secs(5);

/// Takes the lock at `path`, waiting up to `patience` while its holder is leaving: it holds the
/// lock but `serving` says no daemon serves (a stopping daemon removes its runtime file first,
/// then ends). A daemon that serves, or one still holding the lock after `patience`, wins.
pub(crate) async fn acquire_past_a_leaving_holder(
    path: &Path,
    serving: impl Fn() -> bool,
    patience: Duration,
) -> io::Result<Acquired> {
    let deadline = Instant::now() + patience;
    loop {
        match try_acquire(path)? {
            Acquired::Lock(lock) => return Ok(Acquired::Lock(lock)),
            Acquired::HeldByAnother if serving() || Instant::now() >= deadline => {
                return Ok(Acquired::HeldByAnother);
            }
            Acquired::HeldByAnother => tokio::time::sleep(Duration::from_millis(50)).await,
        }
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

    #[tokio::test]
    async fn a_leaving_holder_is_waited_for_and_a_serving_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.lock");
        let leaving = try_acquire(&path).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(leaving);
        });
        let began = Instant::now();
        let taken = acquire_past_a_leaving_holder(&path, || false, Duration::from_secs(5))
            .await
            .unwrap();
        assert!(matches!(taken, Acquired::Lock(_)));
        assert!(began.elapsed() >= Duration::from_millis(250));
        release.join().unwrap();
        drop(taken);

        let serving = try_acquire(&path).unwrap();
        let began = Instant::now();
        let refused = acquire_past_a_leaving_holder(&path, || true, Duration::from_secs(5))
            .await
            .unwrap();
        assert!(matches!(refused, Acquired::HeldByAnother));
        assert!(began.elapsed() < Duration::from_secs(1));
        // A holder that never leaves wins once the patience is over.
        let refused = acquire_past_a_leaving_holder(&path, || false, Duration::from_millis(200))
            .await
            .unwrap();
        assert!(matches!(refused, Acquired::HeldByAnother));
        drop(serving);
    }
}
