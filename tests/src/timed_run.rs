//! `hailer run` timed as a user waits for it: to the first byte of the answer on its standard
//! output, and to its exit. The benchmarks of the first answer share it.

use std::io::Read as _;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::TestWorkspace;

/// What one timed `hailer run` gave.
#[derive(Debug)]
pub struct TimedRun {
    /// From the command's start to the first byte of the answer (the first `The `, so a notice
    /// printed before the answer does not count).
    pub first_byte: Duration,
    /// From the command's start to its exit.
    pub done: Duration,
    /// Everything it printed on standard output.
    pub printed: String,
}

/// Runs `hailer run <question>` in `workspace`; panics, with what it said, when it fails or
/// prints no answer.
pub fn hailer_run(workspace: &TestWorkspace, question: &str) -> TimedRun {
    let started = Instant::now();
    let mut child = workspace
        .command(&["run", question])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("hailer run: {error}"));
    let mut stderr = child
        .stderr
        .take()
        .unwrap_or_else(|| panic!("no stderr pipe"));
    let said = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = child
        .stdout
        .take()
        .unwrap_or_else(|| panic!("no stdout pipe"));
    let mut printed = Vec::new();
    let mut first_byte = None;
    let mut chunk = [0_u8; 4096];
    loop {
        let read = stdout
            .read(&mut chunk)
            .unwrap_or_else(|error| panic!("reading hailer run's output: {error}"));
        if read == 0 {
            break;
        }
        printed.extend_from_slice(&chunk[..read]);
        if first_byte.is_none() && String::from_utf8_lossy(&printed).contains("The ") {
            first_byte = Some(started.elapsed());
        }
    }
    let status = child
        .wait()
        .unwrap_or_else(|error| panic!("hailer run: {error}"));
    let done = started.elapsed();
    let said = said.join().unwrap_or_default();
    let printed = String::from_utf8_lossy(&printed).into_owned();
    assert!(
        status.success(),
        "hailer run failed: {status}\n{said}{printed}"
    );
    let first_byte = first_byte.unwrap_or_else(|| panic!("no answer printed:\n{said}{printed}"));
    TimedRun {
        first_byte,
        done,
        printed,
    }
}
