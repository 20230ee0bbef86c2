//! The sandbox's first process (PID 1 of its PID namespace): it builds the root, confines
//! itself, forks the program under seccomp, and reaps orphans until the program ends.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

use nix::sys::signal::Signal;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid};

use crate::plan::SandboxPlan;

/// In the launcher's child: makes the PID namespace and forks its first process, which runs the
/// program; returns the program's exit code.
pub(super) fn start(plan: &SandboxPlan, program: &OsString, args: &[OsString]) -> i32 {
    if let Err(code) = end_with_parent() {
        return code;
    }
    if let Err(error) = nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWPID) {
        eprintln!("sandbox: cannot make the sandbox's PID namespace: {error}");
        return 1;
    }
    // SAFETY: this process is single-threaded (forked from the launcher before it started any
    // thread), so the child may run any code.
    #[allow(unsafe_code)]
    let fork = unsafe { nix::unistd::fork() };
    match fork {
        Ok(ForkResult::Child) => run(plan, program, args),
        Ok(ForkResult::Parent { child }) => super::launcher::wait_for(child),
        Err(error) => {
            eprintln!("sandbox: cannot start the sandbox's first process: {error}");
            1
        }
    }
}

/// The sandbox ends with its launcher, which the daemon may kill.
fn end_with_parent() -> Result<(), i32> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(|error| {
        eprintln!("sandbox: cannot tie the sandbox to its launcher: {error}");
        1
    })
}

/// The sandbox's first process; returns the program's exit code.
fn run(plan: &SandboxPlan, program: &OsString, args: &[OsString]) -> i32 {
    if let Err(code) = end_with_parent() {
        return code;
    }
    if let Err(error) = super::mounts::build_root(plan) {
        eprintln!("sandbox: {error}");
        return 1;
    }
    if let Err(error) = super::confine::limit_and_restrict(plan) {
        eprintln!("sandbox: {error}");
        return 1;
    }
    // SAFETY: this process is single-threaded (forked from a single-threaded launcher, and it
    // started no thread), so the child may run any code.
    #[allow(unsafe_code)]
    let fork = unsafe { nix::unistd::fork() };
    match fork {
        Ok(ForkResult::Child) => {
            if let Err(error) = super::filters::apply() {
                eprintln!("sandbox: {error}");
                std::process::exit(1);
            }
            let error = std::process::Command::new(program).args(args).exec();
            eprintln!(
                "sandbox: cannot run {}: {error}",
                std::path::Path::new(program).display()
            );
            std::process::exit(127)
        }
        Ok(ForkResult::Parent { child }) => reap_until(child),
        Err(error) => {
            eprintln!("sandbox: cannot start the program: {error}");
            1
        }
    }
}

/// Reaps every process that ends in the sandbox; returns when `program` does, with its code.
fn reap_until(program: Pid) -> i32 {
    loop {
        match waitpid(Pid::from_raw(-1), None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == program => return code,
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == program => {
                return 128 + signal as i32;
            }
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return 1,
        }
    }
}
