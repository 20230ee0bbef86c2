//! A client process running in the background: its output collected as it comes, waited on
//! with deadlines, and signalled like a user would (Ctrl+C is SIGINT).

use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running process and what it printed so far.
pub struct Running {
    child: Child,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("pid", &self.child.id())
            .finish_non_exhaustive()
    }
}

fn collect(mut source: impl std::io::Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        loop {
            match source.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    if let Ok(mut text) = sink.lock() {
                        text.push_str(&String::from_utf8_lossy(&buffer[..read]));
                    }
                }
            }
        }
    });
    text
}

impl Running {
    /// Starts `command` with its output piped here and no standard input.
    pub fn spawn(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {command:?}: {error}"));
        let stdout = child.stdout.take().map(collect).unwrap_or_default();
        let stderr = child.stderr.take().map(collect).unwrap_or_default();
        Self {
            child,
            stdout,
            stderr,
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything the process wrote to standard output so far (lossily decoded as UTF-8).
    pub fn stdout(&self) -> String {
        self.stdout
            .lock()
            .map(|text| text.clone())
            .unwrap_or_default()
    }

    /// Everything the process wrote to standard error so far (lossily decoded as UTF-8).
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .map(|text| text.clone())
            .unwrap_or_default()
    }

    /// Waits until standard output contains `needle`; panics with both outputs after `limit`
    /// or when the process ended first.
    pub fn wait_for_stdout(&mut self, needle: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.stdout().contains(needle) {
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(200));
                panic!(
                    "the process ended ({status}) before printing {needle:?}\nstdout:\n{}\nstderr:\n{}",
                    self.stdout(),
                    self.stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "no {needle:?} within {limit:?}\nstdout:\n{}\nstderr:\n{}",
                self.stdout(),
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        let pid = nix::unistd::Pid::from_raw(
            i32::try_from(self.child.id())
                .unwrap_or_else(|_| panic!("pid {} does not fit a signal call", self.child.id())),
        );
        nix::sys::signal::kill(pid, signal).unwrap_or_else(|error| panic!("kill: {error}"));
    }

    /// Waits for the process to end; panics (after killing it) past `limit`.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the reader threads take the last output.
                std::thread::sleep(Duration::from_millis(200));
                return status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!(
                    "the process did not end within {limit:?}\nstdout:\n{}\nstderr:\n{}",
                    self.stdout(),
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
