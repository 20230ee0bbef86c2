//! The system calls the sandbox's seccomp filter refuses, as data.

/// Refused with `EPERM`: tracing and reading other processes, the kernel's key store, BPF,
/// performance counters, mounts, namespaces, modules and other machine-wide controls.
pub(crate) const REFUSED: &[&str] = &[
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    "pidfd_getfd",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "open_by_handle_at",
    "name_to_handle_at",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "sethostname",
    "setdomainname",
];

/// Answered with `ENOSYS`, so the C library falls back to a call the filter can inspect:
/// `clone3` passes its flags in memory, where seccomp cannot read them; `clone` passes them in
/// a register.
pub(crate) const ABSENT: &[&str] = &["clone3"];

/// `clone` is refused when its flags ask for any of these new namespaces (`CLONE_NEWNS`,
/// `CLONE_NEWCGROUP`, `CLONE_NEWUTS`, `CLONE_NEWIPC`, `CLONE_NEWUSER`, `CLONE_NEWPID`,
/// `CLONE_NEWNET`, `CLONE_NEWTIME`), by value so the list is tested on any host.
pub(crate) const CLONE_NAMESPACE_FLAGS: &[(&str, u64)] = &[
    ("CLONE_NEWNS", 0x0002_0000),
    ("CLONE_NEWCGROUP", 0x0200_0000),
    ("CLONE_NEWUTS", 0x0400_0000),
    ("CLONE_NEWIPC", 0x0800_0000),
    ("CLONE_NEWUSER", 0x1000_0000),
    ("CLONE_NEWPID", 0x2000_0000),
    ("CLONE_NEWNET", 0x4000_0000),
    ("CLONE_NEWTIME", 0x0000_0080),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calls_the_runtime_promises_to_refuse_are_refused() {
        for name in [
            "ptrace",
            "process_vm_readv",
            "process_vm_writev",
            "keyctl",
            "bpf",
            "perf_event_open",
            "mount",
            "unshare",
            "setns",
        ] {
            assert!(REFUSED.contains(&name), "{name} is not refused");
        }
    }

    #[test]
    fn no_call_is_listed_twice_and_process_creation_stays() {
        let mut all: Vec<&str> = REFUSED.iter().chain(ABSENT).copied().collect();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
        for needed in ["clone", "fork", "vfork", "execve", "socket", "connect"] {
            assert!(!all.contains(&needed), "{needed} must stay allowed");
        }
    }

    #[test]
    fn the_namespace_flags_are_distinct_single_bits() {
        let mut seen = 0u64;
        for (name, flag) in CLONE_NAMESPACE_FLAGS {
            assert_eq!(flag.count_ones(), 1, "{name}");
            assert_eq!(seen & flag, 0, "{name}");
            seen |= flag;
        }
    }
}
