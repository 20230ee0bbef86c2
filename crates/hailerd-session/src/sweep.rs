//! What dead owners left in a workspace's `.hailer/`, removed before a session starts there:
//! owner locks that no process holds, and the logs of unsafe-local servers whose daemon is gone
//! (such a log holds the dead server's signed link).

use std::path::Path;

use hailerd_kernel::OwnerLock;

/// Removes the leftovers in `state_dir`; how many files went.
pub(super) fn sweep_leftovers(state_dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(state_dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let stale = if name.starts_with("owner-") && name.ends_with(".lock") {
            !OwnerLock::is_held(&path)
        } else if let Some(pid) = name
            .strip_prefix("marimo-")
            .and_then(|rest| rest.strip_suffix(".log"))
        {
            pid.parse::<i32>().is_ok_and(|pid| !is_alive(pid))
        } else {
            false
        };
        // A link is never followed or removed through: only plain files go.
        let plain = entry.file_type().is_ok_and(|kind| kind.is_file());
        if stale && plain && std::fs::remove_file(&path).is_ok() {
            tracing::info!(file = %path.display(), "removed a dead owner's leftover");
            removed += 1;
        }
    }
    removed
}

/// Whether a process with this id runs (this daemon's own id counts as running).
fn is_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    if u32::try_from(pid).is_ok_and(|pid| pid == std::process::id()) {
        return true;
    }
    runs(pid)
}

#[cfg(unix)]
fn runs(pid: i32) -> bool {
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(nix::errno::Errno::ESRCH) => false,
        // EPERM: it runs, as someone else.
        Err(_) => true,
    }
}

/// Without a cheap check here, every owner counts as running: nothing is swept.
#[cfg(not(unix))]
fn runs(_pid: i32) -> bool {
    true
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn dead_owners_leftovers_go_and_live_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        let held = OwnerLock::acquire(state).unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = child.id();
        child.wait().unwrap();
        let own_pid = std::process::id();
        let parent_pid = nix::unistd::getppid().as_raw();
        let files = [
            ("owner-0123456789abcdef.lock", false),
            (&format!("marimo-{dead_pid}.log") as &str, false),
            (&format!("marimo-{own_pid}.log"), true),
            (&format!("marimo-{parent_pid}.log"), true),
            ("marimo-notapid.log", true),
            ("notebook.json", true),
            ("threads.sqlite", true),
        ];
        for (name, _) in &files {
            std::fs::write(state.join(name), "x").unwrap();
        }
        // A link named like a leftover is left alone.
        std::os::unix::fs::symlink(state.join("notebook.json"), state.join("owner-link.lock"))
            .unwrap();
        assert_eq!(sweep_leftovers(state), 2);
        for (name, kept) in files {
            assert_eq!(state.join(name).exists(), kept, "{name}");
        }
        assert!(held.path().exists(), "the held owner lock was removed");
        assert!(state.join("owner-link.lock").symlink_metadata().is_ok());
        assert_eq!(sweep_leftovers(&state.join("missing")), 0);
    }
}
