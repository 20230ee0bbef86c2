//! Ending a whole process tree on Windows: a Job Object that every process of the tree belongs
//! to (children join their parent's job), ended at once, and ended by the system when its last
//! handle closes, so a daemon that is killed takes its kernels with it. (On Unix the same job is
//! done with process groups; see `hailer_marimo::launch::process_tree`.)
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
    use super::*;

    #[tokio::test]
    async fn terminating_the_job_ends_its_process_tree() {
        // cmd starts a second cmd that waits for input that never comes; ending the job must
        // end both, and the first reports the job's exit code.
        let mut child = tokio::process::Command::new("cmd")
            .args(["/c", "cmd /c more"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let job = Job::new().unwrap();
        job.assign_child(&child).unwrap();
        job.terminate().unwrap();
        let status = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(1));
    }
}
