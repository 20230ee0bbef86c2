//! hailerd keeps no secret where the user's other processes can read it: it runs with the
//! minimal environment (started afresh with it when a shell started hailerd directly with
//! more), and on Linux it is not dumpable, so its `/proc` files (environment, memory, file
//! descriptors) are closed to the user's other processes, an unsafe-local kernel among them.
//! What such a kernel can still read is the user's own files, the runtime file with the daemon
//! token among them.

use hailer_config::{daemon_environment, is_daemon_environment};

/// Replaces this process with hailerd started with the minimal environment, when the present
/// one holds more; returns when nothing needs doing. On Windows, where a process cannot replace
/// itself, the client's minimal environment is what hailerd runs with.
pub(crate) fn ensure_minimal_environment() -> anyhow::Result<()> {
    let names: Vec<std::ffi::OsString> = std::env::vars_os().map(|(name, _)| name).collect();
    if is_daemon_environment(names.iter().map(std::ffi::OsString::as_os_str)) {
        return Ok(());
    }
    restart_with(daemon_environment(std::env::vars_os()))
}

#[cfg(unix)]
fn restart_with(env: Vec<(std::ffi::OsString, std::ffi::OsString)>) -> anyhow::Result<()> {
    use anyhow::Context as _;
    use std::os::unix::process::CommandExt as _;
    let exe = std::env::current_exe().context("cannot find hailerd's own executable")?;
    let error = std::process::Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .env_clear()
        .envs(env)
        .exec();
    Err(anyhow::Error::new(error).context(format!(
        "cannot start {} again with the minimal environment",
        exe.display()
    )))
}

#[cfg(not(unix))]
fn restart_with(_env: Vec<(std::ffi::OsString, std::ffi::OsString)>) -> anyhow::Result<()> {
    Ok(())
}

/// Closes this process to inspection by the user's other processes, where the platform allows.
pub(crate) fn forbid_inspection() {
    if let Err(error) = hailer_platform::forbid_inspection() {
        tracing::warn!(%error, "hailerd could not make itself non-dumpable");
    }
}
