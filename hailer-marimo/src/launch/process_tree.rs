//! Finding and ending a server's processes through `/proc`.
//!
//! marimo starts each kernel as its own session leader, so signalling the server's process group
//! does not reach kernels: they are found as descendants of the server instead, and identified by
//! pid plus start time so a reused pid is never signalled.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// A process, pinned to one incarnation of its pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId {
    pub pid: i32,
    /// Start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`).
    pub start_time: u64,
}

/// The fields of `/proc/<pid>/stat` this module uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub start_time: u64,
}

/// Parses the text of `/proc/<pid>/stat` (the command name may hold spaces and parentheses).
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let after_name = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // fields[0] is field 3 (state); field N is fields[N - 3].
    Some(ProcStat {
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

/// The stat of `pid`, if it exists.
pub fn read_stat(pid: i32) -> Option<ProcStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every live process below `root` (children, grandchildren, ...), parents first.
pub fn descendants(root: i32) -> Vec<(ProcessId, ProcStat)> {
    let mut children: HashMap<i32, Vec<(i32, ProcStat)>> = HashMap::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if let Some(stat) = read_stat(pid) {
                children.entry(stat.ppid).or_default().push((pid, stat));
            }
        }
    }
    let mut found = Vec::new();
    let mut queue = VecDeque::from([root]);
    while let Some(parent) = queue.pop_front() {
        for (pid, stat) in children.remove(&parent).unwrap_or_default() {
            queue.push_back(pid);
            found.push((
                ProcessId {
                    pid,
                    start_time: stat.start_time,
                },
                stat,
            ));
        }
    }
    found
}

/// Whether the process still runs (a zombie has ended; it only waits to be reaped).
pub fn is_running(process: ProcessId) -> bool {
    read_stat(process.pid).is_some_and(|stat| {
        stat.start_time == process.start_time && !matches!(stat.state, 'Z' | 'X' | 'x')
    })
}

/// Sends `signal` to the process (and to its group when it leads one), if it still runs.
pub fn signal_process(process: ProcessId, signal: Signal) {
    let Some(stat) = read_stat(process.pid) else {
        return;
    };
    if stat.start_time != process.start_time {
        return;
    }
    if stat.pgrp == process.pid {
        let _ = killpg(Pid::from_raw(process.pid), signal);
    }
    let _ = kill(Pid::from_raw(process.pid), signal);
}

/// Sends `signal` to a whole process group.
pub fn signal_group(leader: i32, signal: Signal) {
    let _ = killpg(Pid::from_raw(leader), signal);
}

/// Ends `processes`: SIGTERM, up to `grace` for them to go, then SIGKILL for the rest.
pub async fn end_processes(processes: &[ProcessId], grace: Duration) {
    for process in processes {
        signal_process(*process, Signal::SIGTERM);
    }
    let until = tokio::time::Instant::now() + grace;
    while processes.iter().any(|p| is_running(*p)) && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    kill_now(processes);
}

/// SIGKILL for every process in `processes` that still runs (usable from `Drop`).
pub fn kill_now(processes: &[ProcessId]) {
    for process in processes {
        if is_running(*process) {
            signal_process(*process, Signal::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn parses_a_stat_line_with_odd_command_names() {
        let line = "1234 (python (x) y) S 1000 1234 1234 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 0 987654 1 2 3";
        let stat = parse_stat(line).unwrap();
        assert_eq!(
            stat,
            ProcStat {
                state: 'S',
                ppid: 1000,
                pgrp: 1234,
                start_time: 987_654
            }
        );
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) S 1"), None);
    }

    #[test]
    fn finds_our_own_children() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let me = i32::try_from(std::process::id()).unwrap();
        let found = descendants(me);
        let pid = i32::try_from(child.id()).unwrap();
        let (process, _) = found.iter().find(|(p, _)| p.pid == pid).copied().unwrap();
        assert!(is_running(process));
        kill_now(&[process]);
        child.wait().unwrap();
        assert!(!is_running(process));
    }
}
