//! The macOS side: a Seatbelt profile for `sandbox-exec`, generated from the same plan.
//!
//! Reads of the user's home are refused except the data folder, the kernel's environment and
//! the notebooks; writes are allowed only to the notebooks and the temporary folders; the
//! network is refused except marimo's own listening port on loopback, which the daemon
//! connects to.

use std::path::Path;

use crate::plan::SandboxPlan;

/// The program that applies a profile on macOS.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The profile for `plan`, with marimo listening on `port` of loopback (a number, or a
/// placeholder the caller replaces); `temporary` is the user's temporary folder (`$TMPDIR`,
/// under `/private/var/folders` on macOS).
pub fn profile(plan: &SandboxPlan, port: &str, temporary: &Path) -> String {
    let mut text = String::from(
        "(version 1)\n\
         (deny default)\n\
         (allow process-exec process-fork signal (target same-sandbox))\n\
         (allow sysctl-read mach-lookup ipc-posix-shm ipc-posix-sem iokit-open)\n\
         (allow file-read* file-test-existence)\n",
    );
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
    text.push_str(&format!("(allow file-read*{readable})\n"));
    text.push_str(&format!(
        "(allow file-write* (subpath {}) (subpath {}) (subpath \"/private/tmp\") (subpath \"/private/var/folders\") (literal \"/dev/null\"))\n",
        quoted(&plan.notebooks),
        quoted(temporary),
    ));
    text.push_str(&format!(
        "(allow network-bind network-inbound (local ip \"localhost:{port}\"))\n\
         (allow network-outbound (remote ip \"localhost:{port}\"))\n\
         (allow network-outbound (remote unix-socket))\n"
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

    #[test]
    fn everything_is_refused_unless_allowed() {
        let text = profile(&plan(), "4123", Path::new("/private/var/folders/xy/T"));
        assert!(text.starts_with("(version 1)\n(deny default)\n"));
    }

    #[test]
    fn the_home_is_unreadable_but_for_data_environment_and_notebooks() {
        let text = profile(&plan(), "4123", Path::new("/private/var/folders/xy/T"));
        let deny = text
            .find("(deny file-read* (subpath \"/Users/ana\"))")
            .unwrap();
        let allow = text
            .find("(allow file-read* (subpath \"/Users/ana/Library/Application Support/hailer/kernel-envs/c1\") (subpath \"/Users/ana/sales/\\\"data\\\"\") (subpath \"/Users/ana/sales/notebooks\"))")
            .unwrap();
        // Seatbelt lets the last matching rule win: the exceptions come after the refusal.
        assert!(deny < allow);
    }

    #[test]
    fn writes_go_only_to_notebooks_and_temporary_folders() {
        let text = profile(&plan(), "4123", Path::new("/private/var/folders/xy/T"));
        let writes: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("file-write"))
            .collect();
        assert_eq!(
            writes,
            [
                "(allow file-write* (subpath \"/Users/ana/sales/notebooks\") (subpath \"/private/var/folders/xy/T\") (subpath \"/private/tmp\") (subpath \"/private/var/folders\") (literal \"/dev/null\"))"
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
                "(allow network-outbound (remote unix-socket))",
            ]
        );
    }
}
