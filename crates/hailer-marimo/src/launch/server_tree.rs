//! A marimo server's process tree and how it ends. Unix: the server leads its own process group,
//! and its kernels (each a session leader of its own) are found through `/proc` (Linux) or `ps`
//! (macOS) and signalled by pid and start time (`process_tree`). Windows: the server is put in a
//! Job Object that its kernels join as they start; ending the job ends them all, and so does the
//! daemon's end.

use std::time::Duration;

use tokio::process::{Child, Command};

#[cfg(unix)]
use super::process_tree::{self, ProcessId};

/// Prepares the server's command: its own process group on Unix; no console window on
/// Windows (the daemon has no console, so a console program would get a new window).
pub(super) fn prepare(command: &mut Command) {
    #[cfg(unix)]
    command.process_group(0);
    #[cfg(windows)]
    command.creation_flags(windows_sys::Win32::System::Threading::CREATE_NO_WINDOW);
}

/// The processes of a running server.
#[derive(Debug)]
pub(super) struct ServerTree {
    pid: i32,
    #[cfg(windows)]
    job: Option<hailer_platform::Job>,
}

/// The processes seen before a stop began, to be ended after the server went.
#[derive(Debug, Default)]
pub(super) struct Snapshot {
    #[cfg(unix)]
    processes: Vec<ProcessId>,
}

impl ServerTree {
    /// Tracks the tree of the freshly spawned `child`.
    pub(super) fn track(child: &Child) -> Self {
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .unwrap_or(0);
        #[cfg(windows)]
        let job = hailer_platform::Job::new()
            .and_then(|job| job.assign_child(child).map(|()| job))
            .map_err(|error| tracing::warn!(%error, "cannot put marimo in a job object"))
            .ok();
        Self {
            pid,
            #[cfg(windows)]
            job,
        }
    }

    pub(super) fn pid(&self) -> i32 {
        self.pid
    }

    /// The kernel processes (one per session). Unix only: on Windows the job holds them.
    pub(super) fn kernel_pids(&self) -> Vec<i32> {
        #[cfg(unix)]
        {
            process_tree::descendants(self.pid)
                .into_iter()
                .filter(|(process, stat)| stat.pgrp == process.pid)
                .map(|(process, _)| process.pid)
                .collect()
        }
        #[cfg(windows)]
        Vec::new()
    }

    /// What runs below the server now.
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            #[cfg(unix)]
            processes: process_tree::descendants(self.pid)
                .into_iter()
                .map(|(process, _)| process)
                .collect(),
        }
    }

    /// Asks the server to stop: SIGTERM to its group. A console-less Windows process gets no
    /// polite request, so there the job ends at once.
    pub(super) fn ask_to_stop(&self) {
        #[cfg(unix)]
        process_tree::signal_group(self.pid, nix::sys::signal::Signal::SIGTERM);
        #[cfg(windows)]
        self.end_job();
    }

    /// Ends the server's group (the job on Windows) now.
    pub(super) fn force_stop(&self) {
        #[cfg(unix)]
        process_tree::signal_group(self.pid, nix::sys::signal::Signal::SIGKILL);
        #[cfg(windows)]
        self.end_job();
    }

    /// Ends what `snapshot` saw that still runs, after `grace` for it to go by itself.
    pub(super) async fn end_rest(&self, snapshot: &Snapshot, grace: Duration) {
        #[cfg(unix)]
        process_tree::end_processes(&snapshot.processes, grace).await;
        #[cfg(windows)]
        {
            let _ = (snapshot, grace);
            self.end_job();
        }
    }

    /// Ends what `snapshot` saw, now (usable from `Drop`).
    pub(super) fn kill_now(&self, snapshot: &Snapshot) {
        #[cfg(unix)]
        process_tree::kill_now(&snapshot.processes);
        #[cfg(windows)]
        {
            let _ = snapshot;
            self.end_job();
        }
    }

    #[cfg(windows)]
    fn end_job(&self) {
        if let Some(job) = &self.job
            && let Err(error) = job.terminate()
        {
            tracing::warn!(%error, "cannot end marimo's job object");
        }
    }
}
