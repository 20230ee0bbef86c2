//! Giving memory back to the system after a burst. glibc's allocator keeps what a burst of
//! connections freed (their buffers, spread over many arenas) mapped for reuse, so the daemon's
//! resident size would stay at its peak; `malloc_trim(0)` returns the free pages. It runs on
//! the blocking pool once things have been quiet for a moment after event-stream clients left
//! or a turn ended, never on a request's path.
#![allow(unsafe_code)]

use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How long after the last freeing event the memory is given back, so a burst of
/// disconnections trims once.
const QUIET_FOR: Duration = Duration::from_millis(500);

fn freed_signal() -> &'static Notify {
    static SIGNAL: OnceLock<Notify> = OnceLock::new();
    SIGNAL.get_or_init(Notify::new)
}

/// Says that much memory may have been freed (a client left, a turn ended): the trimmer gives
/// it back once things are quiet.
pub fn freed() {
    freed_signal().notify_one();
}

/// Gives freed memory back each time [`freed`] was called and things were then quiet for a
/// moment, until `stop`.
pub async fn trim_after_bursts(stop: CancellationToken) {
    let signal = freed_signal();
    loop {
        tokio::select! {
            () = signal.notified() => {}
            () = stop.cancelled() => return,
        }
        loop {
            tokio::select! {
                () = signal.notified() => {}
                () = tokio::time::sleep(QUIET_FOR) => break,
                () = stop.cancelled() => return,
            }
        }
        let _ = tokio::task::spawn_blocking(release_free_pages).await;
    }
}

/// Returns the allocator's free pages to the system, where the allocator can.
pub(crate) fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointer and works under glibc's own arena locks; any
    // thread may call it at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    fn resident_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    }

    #[test]
    fn freed_small_blocks_go_back_to_the_system() {
        // Many small blocks, then all but the last freed: glibc keeps the heap below the last
        // one mapped until trimmed.
        let mut blocks: Vec<Vec<u8>> = (0..20_000).map(|_| vec![1u8; 4000]).collect();
        let last = blocks.pop();
        drop(blocks);
        let before = resident_kib();
        release_free_pages();
        let after = resident_kib();
        drop(last);
        assert!(
            after + 40_000 < before,
            "RSS {before} KiB before the trim, {after} KiB after"
        );
    }
}
