//! Closing a process to inspection by the user's other processes. On Linux a process that is
//! not dumpable has its `/proc` files (environment, memory, open files) owned by root, so a
//! program running as the same user (an unsafe-local kernel among them) cannot read the
//! environment it was started with, keys included. Elsewhere it does nothing.

/// Makes this process not dumpable, where the platform allows; the system's error when it
/// refuses. hailerd and the `hailer` client both call it first thing.
pub fn forbid_inspection() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    nix::sys::prctl::set_dumpable(false).map_err(std::io::Error::from)?;
    Ok(())
}
