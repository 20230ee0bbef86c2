//! The sandbox runtime's confinement, made by Hailer itself with no setuid helper.
//!
//! On Linux a launcher (`hailerd sandbox-exec`, a re-execution of the daemon's own program) puts
//! marimo in new user, mount, PID, network, IPC and UTS namespaces, on a root of read-only
//! binds of the system folders and the kernel's environment, with Landlock and seccomp on top.
//! The daemon reaches marimo through a loopback listener the launcher keeps outside the
//! sandbox's network. On macOS the same runtime runs marimo under a generated Seatbelt profile.
//!
//! The decisions are pure and tested on any host: the plan ([`SandboxPlan`]: what is visible and
//! writable), the `syscalls` module (what seccomp refuses) and [`seatbelt_profile`] (the macOS
//! profile). The system calls that carry them out live in the Linux-only `linux` module.

#![cfg_attr(not(test), warn(clippy::print_stdout))]
mod plan;
mod seatbelt;
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod syscalls;

#[cfg(target_os = "linux")]
mod linux;

#[cfg(target_os = "linux")]
pub use linux::launcher::run as run_launcher;

pub use plan::{Limits, MountOp, PathKind, SandboxPlan};
pub use seatbelt::{SANDBOX_EXEC, profile as seatbelt_profile};

/// The daemon's hidden subcommand that starts a program in the sandbox:
/// `hailerd sandbox-exec <plan as JSON> <port> -- <program> <args>...`.
pub const LAUNCHER_SUBCOMMAND: &str = "sandbox-exec";

/// Whether this system has a sandbox runtime: Linux (namespaces, Landlock, seccomp) and macOS
/// (Seatbelt). Windows has none: the docker runtime is the isolated one there.
pub fn offered() -> bool {
    not_offered_on(std::env::consts::OS).is_none()
}

/// Why the sandbox runtime is not offered on the system `os` names (as
/// [`std::env::consts::OS`] does), naming the runtime to use instead; `None` where it is offered.
pub fn not_offered_on(os: &str) -> Option<String> {
    match os {
        "linux" | "macos" => None,
        other => {
            let system = match other {
                "windows" => "Windows",
                other => other,
            };
            Some(format!(
                "the sandbox runtime is not offered on {system}: set runtime = \"docker\" under \
                 [kernel] in hailer.toml, which isolates the kernel in a container"
            ))
        }
    }
}

/// How the sandbox limits memory and processes here, for the audit trail: per-process rlimits
/// on Linux, as no cgroup is made for the kernel; none on macOS, whose launch sets none.
pub const LIMITS_IN_FORCE: &str = if cfg!(target_os = "macos") {
    "no memory or process limit"
} else {
    "memory and processes limited by rlimits per process, not by a cgroup"
};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_is_told_the_sandbox_is_not_offered_and_to_use_docker() {
        let said = not_offered_on("windows").unwrap_or_default();
        assert!(
            said.starts_with("the sandbox runtime is not offered on Windows"),
            "{said}"
        );
        assert!(said.contains("runtime = \"docker\""), "{said}");
        assert!(not_offered_on("freebsd").is_some_and(|said| said.contains("docker")));
    }

    #[test]
    fn linux_and_macos_offer_the_sandbox() {
        assert_eq!(not_offered_on("linux"), None);
        assert_eq!(not_offered_on("macos"), None);
        assert_eq!(
            offered(),
            cfg!(any(target_os = "linux", target_os = "macos"))
        );
    }
}
