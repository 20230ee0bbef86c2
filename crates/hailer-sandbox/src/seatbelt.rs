//! The macOS side: a Seatbelt profile for `sandbox-exec`, generated from the same plan.
//!
//! Reads of the user's home are refused except the data folder, the kernel's environment, the
//! notebooks and the kernel's own temporary folder; writes are allowed only to the notebooks and
//! that temporary folder; the network is refused except marimo's own listening port on
//! loopback, which the daemon connects to; of the system's services only those the C library
//! and Python need are reachable ([`MACH_SERVICES`]).

use std::path::Path;

use crate::plan::SandboxPlan;

/// The program that applies a profile on macOS.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The system services (Mach names) the program may look up: user and group names, change
/// notices (time zone), logging and preferences. Every other service is refused.
pub(crate) const MACH_SERVICES: &[&str] = &[
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.notification_center",
    "com.apple.system.logger",
    "com.apple.logd",
    "com.apple.diagnosticd",
    "com.apple.cfprefsd.daemon",
    "com.apple.cfprefsd.agent",
];

/// The profile for `plan`, with marimo listening on `port` of loopback (a number, or a
/// placeholder the caller replaces); `temporary` is the kernel's own temporary folder (its
/// `TMPDIR`), made for this start.
pub fn profile(plan: &SandboxPlan, port: &str, temporary: &Path) -> String {
    let mut text = String::from(
        "(version 1)\n\
         (deny default)\n\
         (allow process-exec process-fork)\n\
         (allow signal (target same-sandbox))\n\
         (allow sysctl-read ipc-posix-shm ipc-posix-sem)\n",
    );
    let services = MACH_SERVICES
        .iter()
        .map(|name| format!(" (global-name \"{name}\")"))
        .collect::<String>();
    text.push_str(&format!("(allow mach-lookup{services})\n"));
    text.push_str("(allow file-read* file-test-existence)\n");
    text.push_str(&format!(
        "(deny file-read* (subpath {}))\n",
        quoted(&plan.home)
    ));
    let readable = plan
        .environment
        .iter()
        .chain([&plan.data, &plan.notebooks])
        .map(|path| format!(" (subpath {})", quoted(path)))
        .collect::<String>();
    text.push_str(&format!(
        "(allow file-read*{readable} (subpath {}))\n",
        quoted(temporary)
    ));
    text.push_str(&format!(
        "(allow file-write* (subpath {}) (subpath {}) (literal \"/dev/null\"))\n",
        quoted(&plan.notebooks),
        quoted(temporary),
    ));
    text.push_str(&format!(
        "(allow network-bind network-inbound (local ip \"localhost:{port}\"))\n\
         (allow network-outbound (remote ip \"localhost:{port}\"))\n"
    ));
    text
}

/// A path as a Seatbelt string: quotes and backslashes escaped.
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::plan::Limits;
    use std::path::PathBuf;

    fn plan() -> SandboxPlan {
        SandboxPlan {
            workspace: PathBuf::from("/Users/ana/sales"),
            home: PathBuf::from("/Users/ana"),
            notebooks: PathBuf::from("/Users/ana/sales/notebooks"),
            data: PathBuf::from("/Users/ana/sales/\"data\""),
            environment: vec![PathBuf::from(
                "/Users/ana/Library/Application Support/hailer/kernel-envs/c1",
            )],
            limits: Limits {
                processes: 256,
                memory_bytes: 1 << 30,
            },
        }
    }

    const TEMPORARY: &str = "/private/var/folders/xy/T/hailer-kernel-1";

    #[test]
    fn everything_is_refused_unless_allowed() {
        let text = profile(&plan(), "4123", Path::new(TEMPORARY));
        assert!(text.starts_with("(version 1)\n(deny default)\n"));
    }

    #[test]
    fn the_home_is_unreadable_but_for_data_environment_and_notebooks() {
        let text = profile(&plan(), "4123", Path::new(TEMPORARY));
        let deny = text
            .find("(deny file-read* (subpath \"/Users/ana\"))")
            .unwrap();
        let allow = text
            .find("(allow file-read* (subpath \"/Users/ana/Library/Application Support/hailer/kernel-envs/c1\") (subpath \"/Users/ana/sales/\\\"data\\\"\") (subpath \"/Users/ana/sales/notebooks\") (subpath \"/private/var/folders/xy/T/hailer-kernel-1\"))")
            .unwrap();
        // Seatbelt lets the last matching rule win: the exceptions come after the refusal.
        assert!(deny < allow);
    }

    #[test]
    fn writes_go_only_to_notebooks_and_temporary_folders() {
        let text = profile(&plan(), "4123", Path::new(TEMPORARY));
        let writes: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("file-write"))
            .collect();
        assert_eq!(
            writes,
            [
                "(allow file-write* (subpath \"/Users/ana/sales/notebooks\") (subpath \"/private/var/folders/xy/T/hailer-kernel-1\") (literal \"/dev/null\"))"
            ]
        );
        assert!(!text.contains("(subpath \"/Users/ana/sales/\\\"data\\\"\") (subpath \"/private"));
    }

    #[test]
    fn the_network_is_only_marimo_s_loopback_port() {
        let text = profile(&plan(), "4123", Path::new("/tmp"));
        let network: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("network"))
            .collect();
        assert_eq!(
            network,
            [
                "(allow network-bind network-inbound (local ip \"localhost:4123\"))",
                "(allow network-outbound (remote ip \"localhost:4123\"))",
            ]
        );
    }

    #[test]
    fn only_the_named_system_services_are_reachable() {
        let text = profile(&plan(), "4123", Path::new(TEMPORARY));
        let lookups: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("mach-lookup"))
            .collect();
        assert_eq!(
            lookups,
            [
                "(allow mach-lookup (global-name \"com.apple.system.opendirectoryd.libinfo\") (global-name \"com.apple.system.notification_center\") (global-name \"com.apple.system.logger\") (global-name \"com.apple.logd\") (global-name \"com.apple.diagnosticd\") (global-name \"com.apple.cfprefsd.daemon\") (global-name \"com.apple.cfprefsd.agent\"))"
            ]
        );
        // No other rule opens a service, a device or a socket.
        for opening in [
            "iokit-open",
            "unix-socket",
            "(allow mach-lookup)",
            "/private/var/folders\")",
            "/private/tmp",
        ] {
            assert!(!text.contains(opening), "{opening} in:\n{text}");
        }
    }

    #[test]
    fn a_temporary_folder_in_the_home_stays_readable() {
        let text = profile(&plan(), "4123", Path::new("/Users/ana/tmp/hailer-kernel-1"));
        let deny = text
            .find("(deny file-read* (subpath \"/Users/ana\"))")
            .unwrap();
        let allow = text
            .find("(subpath \"/Users/ana/tmp/hailer-kernel-1\"))\n(allow file-write*")
            .unwrap();
        assert!(deny < allow, "{text}");
    }
}
