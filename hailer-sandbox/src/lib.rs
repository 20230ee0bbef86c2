//! The sandbox runtime's confinement, made by Hailer itself with no setuid helper.
//!
//! On Linux a launcher (`hailerd sandbox-exec`, a re-execution of the daemon's own program) puts
//! marimo in new user, mount, PID, network, IPC and UTS namespaces, on a root of read-only
//! binds of the system folders and the kernel's environment, with Landlock and seccomp on top.
//! The daemon reaches marimo through a loopback listener the launcher keeps outside the
//! sandbox's network. On macOS the same runtime runs marimo under a generated Seatbelt profile.
//!
//! The decisions are pure and tested on any host: [`plan`] (what is visible and writable),
//! [`syscalls`] (what seccomp refuses) and [`seatbelt`] (the macOS profile). The system calls
//! that carry them out live in the Linux-only `linux` module.

pub mod plan;
pub mod seatbelt;
pub mod syscalls;

#[cfg(target_os = "linux")]
mod linux;

#[cfg(target_os = "linux")]
pub use linux::launcher::run as run_launcher;

pub use plan::{Limits, MountOp, PathKind, SandboxPlan};

/// The daemon's hidden subcommand that starts a program in the sandbox:
/// `hailerd sandbox-exec <plan as JSON> <port> -- <program> <args>...`.
pub const LAUNCHER_SUBCOMMAND: &str = "sandbox-exec";

/// Whether this system has a sandbox runtime: Linux (namespaces, Landlock, seccomp) and macOS
/// (Seatbelt). Windows has none: the docker runtime is the isolated one there.
pub const fn offered() -> bool {
    cfg!(any(target_os = "linux", target_os = "macos"))
}

/// What the sandbox keeps from the kernel on this system, for the `Kernel:` line, the audit
/// trail and `hailer status`.
pub const fn isolation_summary() -> &'static str {
    if cfg!(target_os = "macos") {
        "Seatbelt: no network but the daemon's loopback, home unreadable but data and environment, \
         writes only to notebooks and temporary folders"
    } else {
        "namespaces, Landlock, seccomp: no network, no other process, only the data (read-only), \
         the notebooks and the environment in sight"
    }
}
