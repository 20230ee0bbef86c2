//! The limits and the Landlock layer the sandbox's first process puts on itself and so on
//! everything it starts.

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, PathBeneath, PathFd, Ruleset, RulesetAttr as _, RulesetCreatedAttr as _,
    RulesetStatus,
};
use nix::sys::resource::{Resource, setrlimit};

use crate::plan::SandboxPlan;

/// The Landlock version asked for; an older kernel applies what it knows of it.
const LANDLOCK_ABI: ABI = ABI::V5;

/// Sets the process and memory limits, the host name, an empty capability bounding set, no new
/// privileges and Landlock.
pub(super) fn limit_and_restrict(plan: &SandboxPlan) -> Result<(), String> {
    let _ = nix::unistd::sethostname("hailer-sandbox");
    for (resource, value, what) in [
        (
            Resource::RLIMIT_NPROC,
            plan.limits.processes,
            "the process limit",
        ),
        (
            Resource::RLIMIT_DATA,
            plan.limits.memory_bytes,
            "the memory limit",
        ),
        (Resource::RLIMIT_CORE, 0, "the core-file limit"),
    ] {
        setrlimit(resource, value, value).map_err(|e| format!("cannot set {what}: {e}"))?;
    }
    drop_bounding_set()?;
    nix::sys::prctl::set_no_new_privs().map_err(|e| format!("cannot set no_new_privs: {e}"))?;
    restrict(plan)
}

/// Empties the capability bounding set, so that no program started in the sandbox can gain a
/// capability (the user namespace's root could otherwise regain them through `exec`).
fn drop_bounding_set() -> Result<(), String> {
    for capability in 0..64 {
        // SAFETY: PR_CAPBSET_DROP takes a capability number and reads no memory.
        #[allow(unsafe_code)]
        let result = unsafe { libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) };
        if result != 0 {
            let error = std::io::Error::last_os_error();
            // EINVAL: past the last capability this kernel knows.
            if error.raw_os_error() == Some(libc::EINVAL) {
                return Ok(());
            }
            return Err(format!("cannot drop capability {capability}: {error}"));
        }
    }
    Ok(())
}

fn restrict(plan: &SandboxPlan) -> Result<(), String> {
    let (read, write) = plan.landlock_paths(&|path: &Path| path.exists());
    let read_access = AccessFs::from_read(LANDLOCK_ABI);
    let all = AccessFs::from_all(LANDLOCK_ABI);
    let fail = |e: landlock::RulesetError| format!("cannot set up Landlock: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(fail)?
        .create()
        .map_err(fail)?;
    for (paths, access) in [(&read, read_access), (&write, all)] {
        for path in paths {
            let fd = PathFd::new(path)
                .map_err(|e| format!("cannot open {} for Landlock: {e}", path.display()))?;
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(fail)?;
        }
    }
    // Names of what the mounts show may be listed from the root down; reading a file still
    // needs one of the rules above.
    let root = PathFd::new("/").map_err(|e| format!("cannot open / for Landlock: {e}"))?;
    ruleset = ruleset
        .add_rule(PathBeneath::new(root, AccessFs::ReadDir))
        .map_err(fail)?;
    let status = ruleset.restrict_self().map_err(fail)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        eprintln!("sandbox: this kernel has no Landlock; the mounts alone confine the files");
    }
    Ok(())
}
