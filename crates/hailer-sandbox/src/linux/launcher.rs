//! `hailerd sandbox-exec <plan> <port> -- <program> <args>...`: the sandbox's launcher.
//!
//! It runs single-threaded until the fork (a new user namespace wants that), binds 127.0.0.1:
//! `<port>` in the host's network, makes the namespaces, brings up the sandbox's loopback, and
//! forks the process that makes the PID namespace and its first process. It stays outside the
//! sandbox's PID namespace, relaying connections on the host port into the sandbox, and exits
//! as the program did.

use std::ffi::OsString;
use std::net::{Ipv4Addr, TcpListener};

use nix::sched::CloneFlags;
use nix::sys::signal::{SigHandler, Signal};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Gid, Uid};

use crate::plan::SandboxPlan;

/// What the launcher was asked to run.
struct Request {
    plan: SandboxPlan,
    port: u16,
    program: OsString,
    args: Vec<OsString>,
}

/// Runs the launcher with the arguments after the subcommand; returns the exit code.
pub fn run(args: Vec<OsString>) -> i32 {
    match parse(args) {
        Ok(request) => launch(request),
        Err(message) => {
            eprintln!("sandbox: {message}");
            2
        }
    }
}

fn parse(args: Vec<OsString>) -> Result<Request, String> {
    let mut args = args.into_iter();
    let plan = args.next().ok_or("no plan given")?;
    let plan: SandboxPlan = serde_json::from_str(&plan.to_string_lossy())
        .map_err(|error| format!("the plan is not valid: {error}"))?;
    let port = args
        .next()
        .and_then(|port| port.to_str().and_then(|port| port.parse().ok()))
        .ok_or("no port given")?;
    if args.next().as_deref() != Some(std::ffi::OsStr::new("--")) {
        return Err("`--` must come before the program".to_owned());
    }
    let program = args.next().ok_or("no program given")?;
    Ok(Request {
        plan,
        port,
        program,
        args: args.collect(),
    })
}

fn launch(request: Request) -> i32 {
    // The daemon's side of the relay, bound in the host's network before leaving it.
    let listener = match TcpListener::bind((Ipv4Addr::LOCALHOST, request.port)) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "sandbox: cannot listen on 127.0.0.1:{}: {error}",
                request.port
            );
            return 1;
        }
    };
    if let Err(error) = enter_namespaces() {
        eprintln!("sandbox: {error}");
        return 1;
    }
    // SAFETY: the process is single-threaded here (no thread has been started since `exec`),
    // so the child may run any code.
    #[allow(unsafe_code)]
    let fork = unsafe { nix::unistd::fork() };
    match fork {
        Ok(ForkResult::Child) => {
            drop(listener);
            let code = super::init::start(&request.plan, &request.program, &request.args);
            std::process::exit(code)
        }
        Ok(ForkResult::Parent { child }) => {
            // The daemon's stop asks the whole process group; the launcher outlives the
            // program so that its relay and exit status last until the program ends.
            for signal in [Signal::SIGTERM, Signal::SIGINT] {
                // SAFETY: ignoring a signal installs no handler code.
                #[allow(unsafe_code)]
                let _ = unsafe { nix::sys::signal::signal(signal, SigHandler::SigIgn) };
            }
            super::forward::serve(listener, request.port);
            wait_for(child)
        }
        Err(error) => {
            eprintln!("sandbox: cannot start the sandbox's first process: {error}");
            1
        }
    }
}

/// New user, mount, network, IPC and UTS namespaces, this process's uid and gid mapped to
/// [`super::inside_id`], and the new network's loopback up. The PID namespace comes in the
/// child: a process whose children go to another PID namespace cannot start threads, and the
/// relay needs them.
fn enter_namespaces() -> Result<(), String> {
    let uid = Uid::effective().as_raw();
    let gid = Gid::effective().as_raw();
    nix::sched::unshare(
        CloneFlags::CLONE_NEWUSER
            | CloneFlags::CLONE_NEWNS
            | CloneFlags::CLONE_NEWNET
            | CloneFlags::CLONE_NEWIPC
            | CloneFlags::CLONE_NEWUTS,
    )
    .map_err(|error| {
        format!(
            "cannot make the sandbox's namespaces ({error}); this system does not let users \
             make user namespaces: use runtime = \"docker\""
        )
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|error| format!("cannot write {file}: {error}"))
    };
    write("/proc/self/setgroups", "deny".to_owned())?;
    write(
        "/proc/self/uid_map",
        format!("{} {uid} 1\n", super::inside_id(uid)),
    )?;
    write(
        "/proc/self/gid_map",
        format!("{} {gid} 1\n", super::inside_id(gid)),
    )?;
    super::loopback::bring_up()
}

/// Waits for `child`; returns its exit code (128 + the signal that ended it).
pub(super) fn wait_for(child: nix::unistd::Pid) -> i32 {
    loop {
        match waitpid(child, None) {
            Ok(WaitStatus::Exited(_, code)) => return code,
            Ok(WaitStatus::Signaled(_, signal, _)) => return 128 + signal as i32,
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return 1,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn plan_text() -> OsString {
        OsString::from(
            r#"{"workspace":"/w","home":"/h","notebooks":"/w/n","data":"/w/d","environment":[],"limits":{"processes":10,"memory_bytes":1}}"#,
        )
    }

    #[test]
    fn the_command_line_is_plan_port_and_program() {
        let request = parse(vec![
            plan_text(),
            "4000".into(),
            "--".into(),
            "/venv/bin/python".into(),
            "-m".into(),
            "marimo".into(),
        ])
        .unwrap();
        assert_eq!(request.port, 4000);
        assert_eq!(request.program, "/venv/bin/python");
        assert_eq!(request.args, ["-m", "marimo"]);
        assert_eq!(request.plan.data, std::path::Path::new("/w/d"));
    }

    #[test]
    fn a_malformed_command_line_is_refused() {
        assert!(parse(vec![]).is_err());
        assert!(parse(vec!["{".into(), "1".into(), "--".into(), "p".into()]).is_err());
        assert!(parse(vec![plan_text(), "x".into(), "--".into(), "p".into()]).is_err());
        assert!(parse(vec![plan_text(), "1".into(), "p".into()]).is_err());
        assert!(parse(vec![plan_text(), "1".into(), "--".into()]).is_err());
    }
}
