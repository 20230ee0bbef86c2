//! Ending a whole process tree on Windows: a Job Object that every process of the tree belongs
//! to (children join their parent's job), ended at once, and ended by the system when its last
//! handle closes, so a daemon that is killed takes its kernels with it. (On Unix the same job is
//! done with process groups; see `hailer_marimo::descendants` and `hailer_marimo::signal_group`.)
#![allow(unsafe_code)]

use std::io;
use std::ptr;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject,
};

/// A job whose processes all end when it is ended or dropped.
#[derive(Debug)]
pub struct Job {
    handle: HANDLE,
}

// SAFETY: a job handle may be used from any thread.
unsafe impl Send for Job {}
// SAFETY: the job's functions are thread-safe.
unsafe impl Sync for Job {}

impl Job {
    /// A new, unnamed job that ends its processes when its last handle closes.
    pub fn new() -> io::Result<Self> {
        // SAFETY: no attributes and no name: an unnamed job with default security.
        let handle = unsafe { CreateJobObjectW(ptr::null(), ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let job = Self { handle };
        // SAFETY: an all-zero limit structure is valid; we set one flag.
        let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let size = u32::try_from(size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>())
            .map_err(io::Error::other)?;
        // SAFETY: `limits` is the structure the information class names, of `size` bytes.
        let ok = unsafe {
            SetInformationJobObject(
                job.handle,
                JobObjectExtendedLimitInformation,
                ptr::addr_of!(limits).cast(),
                size,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    /// Puts a child process, and the processes it starts from then on, into the job.
    pub fn assign_child(&self, child: &tokio::process::Child) -> io::Result<()> {
        let handle = child
            .raw_handle()
            .ok_or_else(|| io::Error::other("the process has already ended"))?;
        // SAFETY: a child that has not been waited for keeps its process handle open, and the
        // borrow of `child` keeps it from being waited for during the call.
        if unsafe { AssignProcessToJobObject(self.handle, handle) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Ends every process in the job now, with exit code 1.
    pub fn terminate(&self) -> io::Result<()> {
        // SAFETY: the handle is open.
        if unsafe { TerminateJobObject(self.handle, 1) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is open and closed once; closing it ends the job's processes.
        unsafe { CloseHandle(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::BufRead as _;
    use std::path::Path;
    use std::time::{Duration, Instant};

    use windows_sys::Win32::Foundation::{WAIT_OBJECT_0, WAIT_TIMEOUT};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE,
        WaitForSingleObject,
    };

    use super::*;

    /// This test's own name: the test binary runs it again as the child and the grandchild.
    const NAME: &str = "job_object::tests::terminating_the_job_ends_its_process_tree";
    /// `child` or `grandchild` when the binary runs as one of them.
    const ROLE: &str = "HAILER_JOB_TEST_ROLE";
    /// Where the child writes its grandchild's pid.
    const PID_FILE: &str = "HAILER_JOB_TEST_PID_FILE";

    /// This test binary, running only this test, as `role`.
    fn this_test_as(role: &str) -> std::process::Command {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", NAME, "--test-threads=1"])
            .env(ROLE, role);
        command
    }

    /// The child: waits until the test has put it into the job (one line on its input), so the
    /// grandchild is started inside it, starts the grandchild, writes its pid and waits for it.
    fn child(pid_file: &Path) {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).unwrap();
        let mut grandchild = this_test_as("grandchild")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let written = pid_file.with_extension("tmp");
        std::fs::write(&written, grandchild.id().to_string()).unwrap();
        std::fs::rename(&written, pid_file).unwrap();
        grandchild.wait().unwrap();
    }

    /// A handle that can wait for the process `pid` and read its exit code.
    struct Process(HANDLE);

    impl Process {
        fn open(pid: u32) -> Self {
            let access = PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION;
            // SAFETY: no handle is inherited; a null result is checked.
            let handle = unsafe { OpenProcess(access, 0, pid) };
            assert!(!handle.is_null(), "{}", io::Error::last_os_error());
            Self(handle)
        }

        /// The exit code once it has ended within `limit`, `None` while it runs.
        fn exit_code_within(&self, limit: Duration) -> Option<u32> {
            let millis = u32::try_from(limit.as_millis()).unwrap();
            // SAFETY: the handle is open and was opened with SYNCHRONIZE.
            match unsafe { WaitForSingleObject(self.0, millis) } {
                WAIT_OBJECT_0 => {
                    let mut code = 0u32;
                    // SAFETY: the handle was opened with PROCESS_QUERY_LIMITED_INFORMATION.
                    let ok = unsafe { GetExitCodeProcess(self.0, &mut code) };
                    assert_ne!(ok, 0, "{}", io::Error::last_os_error());
                    Some(code)
                }
                WAIT_TIMEOUT => None,
                other => panic!(
                    "WaitForSingleObject: {other}: {}",
                    io::Error::last_os_error()
                ),
            }
        }
    }

    impl Drop for Process {
        fn drop(&mut self) {
            // SAFETY: opened above, closed once.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// The job ends its whole tree: this test starts a child (this binary again), puts it into
    /// a job, and lets it start a grandchild; both would sleep for a minute. Ending the job
    /// must end both at once with the job's exit code, 1: the direct child through its
    /// `Child`, the grandchild through a handle opened on its pid before the end (held, so
    /// the pid cannot be reused meanwhile), which shows it was in the job without having been
    /// put there. It runs the same way under Wine, whose job objects take a process's
    /// children in as Windows does.
    #[tokio::test]
    async fn terminating_the_job_ends_its_process_tree() {
        match std::env::var(ROLE).as_deref() {
            Ok("child") => {
                child(Path::new(&std::env::var_os(PID_FILE).unwrap()));
                return;
            }
            Ok("grandchild") => {
                std::thread::sleep(Duration::from_secs(60));
                return;
            }
            _ => {}
        }
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let mut command = tokio::process::Command::from(this_test_as("child"));
        let mut child = command
            .env(PID_FILE, &pid_file)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let job = Job::new().unwrap();
        job.assign_child(&child).unwrap();
        {
            use tokio::io::AsyncWriteExt as _;
            let mut input = child.stdin.take().unwrap();
            input.write_all(b"in the job\n").await.unwrap();
            input.flush().await.unwrap();
        }

        let started = Instant::now();
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file) {
                break text.trim().parse::<u32>().unwrap();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the child started no grandchild"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let grandchild = Process::open(pid);
        assert_eq!(
            grandchild.exit_code_within(Duration::ZERO),
            None,
            "the grandchild runs before the job ends"
        );

        job.terminate().unwrap();
        let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            status.code(),
            Some(1),
            "the child ended with the job's code"
        );
        assert_eq!(
            grandchild.exit_code_within(Duration::from_secs(20)),
            Some(1),
            "the grandchild ended with the job's code"
        );
    }
}
