//! The seccomp filters of [`crate::syscalls`], built with seccompiler and applied to the
//! program's process before it starts the program.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::syscalls::{ABSENT, CLONE_NAMESPACE_FLAGS, REFUSED};

/// Applies both filters to this thread (no_new_privs is already set).
pub(super) fn apply() -> Result<(), String> {
    for filter in [refusals()?, absences()?] {
        seccompiler::apply_filter(&filter).map_err(|e| format!("cannot apply seccomp: {e}"))?;
    }
    Ok(())
}

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("seccomp is not set up for {}", std::env::consts::ARCH))
}

/// `EPERM` for the refused calls, and for `clone` asking for a new namespace.
fn refusals() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for name in REFUSED {
        if let Some(number) = number(name) {
            rules.insert(number, Vec::new());
        }
    }
    let mut clone_rules = Vec::new();
    for (_, flag) in CLONE_NAMESPACE_FLAGS {
        let condition = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(*flag),
            *flag,
        )
        .map_err(|e| format!("cannot build the clone rule: {e}"))?;
        clone_rules.push(
            SeccompRule::new(vec![condition])
                .map_err(|e| format!("cannot build the clone rule: {e}"))?,
        );
    }
    rules.insert(libc::SYS_clone, clone_rules);
    compile(rules, libc::EPERM)
}

/// `ENOSYS` for the calls the C library then replaces by one the filter can read.
fn absences() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for name in ABSENT {
        if let Some(number) = number(name) {
            rules.insert(number, Vec::new());
        }
    }
    compile(rules, libc::ENOSYS)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, String> {
    let errno = u32::try_from(errno).map_err(|_| "a negative errno".to_owned())?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        arch()?,
    )
    .map_err(|e| format!("cannot build the seccomp filter: {e}"))?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| format!("cannot compile the seccomp filter: {e}"))
}

/// The number of the call `name` on this architecture; `None` for a call it does not have
/// (`iopl` and `ioperm` exist on x86-64 only).
fn number(name: &str) -> Option<i64> {
    let number = match name {
        "ptrace" => libc::SYS_ptrace,
        "process_vm_readv" => libc::SYS_process_vm_readv,
        "process_vm_writev" => libc::SYS_process_vm_writev,
        "process_madvise" => libc::SYS_process_madvise,
        "kcmp" => libc::SYS_kcmp,
        "pidfd_getfd" => libc::SYS_pidfd_getfd,
        "keyctl" => libc::SYS_keyctl,
        "add_key" => libc::SYS_add_key,
        "request_key" => libc::SYS_request_key,
        "bpf" => libc::SYS_bpf,
        "perf_event_open" => libc::SYS_perf_event_open,
        "userfaultfd" => libc::SYS_userfaultfd,
        "mount" => libc::SYS_mount,
        "umount2" => libc::SYS_umount2,
        "pivot_root" => libc::SYS_pivot_root,
        "chroot" => libc::SYS_chroot,
        "move_mount" => libc::SYS_move_mount,
        "open_tree" => libc::SYS_open_tree,
        "fsopen" => libc::SYS_fsopen,
        "fsconfig" => libc::SYS_fsconfig,
        "fsmount" => libc::SYS_fsmount,
        "fspick" => libc::SYS_fspick,
        "mount_setattr" => libc::SYS_mount_setattr,
        "unshare" => libc::SYS_unshare,
        "setns" => libc::SYS_setns,
        "open_by_handle_at" => libc::SYS_open_by_handle_at,
        "name_to_handle_at" => libc::SYS_name_to_handle_at,
        "init_module" => libc::SYS_init_module,
        "finit_module" => libc::SYS_finit_module,
        "delete_module" => libc::SYS_delete_module,
        "kexec_load" => libc::SYS_kexec_load,
        "kexec_file_load" => libc::SYS_kexec_file_load,
        "reboot" => libc::SYS_reboot,
        "swapon" => libc::SYS_swapon,
        "swapoff" => libc::SYS_swapoff,
        "syslog" => libc::SYS_syslog,
        "acct" => libc::SYS_acct,
        "quotactl" => libc::SYS_quotactl,
        #[cfg(target_arch = "x86_64")]
        "iopl" => libc::SYS_iopl,
        #[cfg(target_arch = "x86_64")]
        "ioperm" => libc::SYS_ioperm,
        "settimeofday" => libc::SYS_settimeofday,
        "clock_settime" => libc::SYS_clock_settime,
        "adjtimex" => libc::SYS_adjtimex,
        "sethostname" => libc::SYS_sethostname,
        "setdomainname" => libc::SYS_setdomainname,
        "clone3" => libc::SYS_clone3,
        _ => return None,
    };
    Some(number)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_listed_call_has_a_number_here_and_the_filters_compile() {
        for name in REFUSED.iter().chain(ABSENT) {
            if cfg!(not(target_arch = "x86_64")) && matches!(*name, "iopl" | "ioperm") {
                continue;
            }
            assert!(number(name).is_some(), "{name}");
        }
        assert!(!refusals().unwrap().is_empty());
        assert!(!absences().unwrap().is_empty());
    }
}
