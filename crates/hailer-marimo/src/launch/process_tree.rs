//! Finding and ending a server's processes: through `/proc` on Linux, through `ps` on the other
//! Unix systems (macOS has no `/proc`; see the `ps` submodule).
//!
//! marimo starts each kernel as its own session leader, so signalling the server's process group
//! does not reach kernels: they are found as descendants of the server instead, and identified by
//! pid plus start time so a reused pid is never signalled. The start time's unit depends on the
//! source (clock ticks since boot from `/proc`, seconds since the epoch from `ps`), so a value is
//! only ever compared with one read the same way on the same system.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

#[cfg(any(not(target_os = "linux"), test))]
mod ps;

/// A process, pinned to one incarnation of its pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessId {
    /// The operating system's process id.
    pub pid: i32,
    /// Start time: clock ticks since boot on Linux (field 22 of `/proc/<pid>/stat`), seconds
    /// since the Unix epoch elsewhere (`ps`'s `lstart`).
    pub start_time: u64,
}

/// The fields of a process this module uses (named after `/proc/<pid>/stat`'s; `state` has its
/// letters: `Z` is a zombie, `R` running, `S` asleep, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// The state letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// The parent's process id.
    pub ppid: i32,
    /// The process group id; equal to the process's own pid for a group leader.
    pub pgrp: i32,
    /// The start time, in the unit described at [`ProcessId::start_time`].
    pub start_time: u64,
}

/// Parses the text of `/proc/<pid>/stat` (the command name may hold spaces and parentheses).
#[cfg(any(target_os = "linux", test))]
pub(crate) fn parse_stat(text: &str) -> Option<ProcStat> {
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
#[cfg(target_os = "linux")]
pub fn read_stat(pid: i32) -> Option<ProcStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The stat of `pid`, if it exists.
#[cfg(not(target_os = "linux"))]
pub fn read_stat(pid: i32) -> Option<ProcStat> {
    ps::read_one(pid)
}

/// Every process of the system.
#[cfg(target_os = "linux")]
fn process_table() -> Vec<(i32, ProcStat)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, read_stat(pid)?)))
        .collect()
}

/// Every process of the system.
#[cfg(not(target_os = "linux"))]
fn process_table() -> Vec<(i32, ProcStat)> {
    ps::read_table()
}

/// Every live process below `root` (children, grandchildren, ...), parents first.
pub fn descendants(root: i32) -> Vec<(ProcessId, ProcStat)> {
    descendants_in(process_table(), root)
}

/// The processes below `root` in `table`, parents first.
fn descendants_in(table: Vec<(i32, ProcStat)>, root: i32) -> Vec<(ProcessId, ProcStat)> {
    let mut children: HashMap<i32, Vec<(i32, ProcStat)>> = HashMap::new();
    for (pid, stat) in table {
        // A pid that is its own parent (pid 0 on macOS) would loop.
        if pid != stat.ppid {
            children.entry(stat.ppid).or_default().push((pid, stat));
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

/// Whether any of `processes` still runs.
#[cfg(target_os = "linux")]
fn any_running(processes: &[ProcessId]) -> bool {
    processes.iter().any(|p| is_running(*p))
}

/// Whether any of `processes` still runs (one `ps` for them all).
#[cfg(not(target_os = "linux"))]
fn any_running(processes: &[ProcessId]) -> bool {
    if processes.is_empty() {
        return false;
    }
    let table: HashMap<i32, ProcStat> = process_table().into_iter().collect();
    processes.iter().any(|p| {
        table.get(&p.pid).is_some_and(|stat| {
            stat.start_time == p.start_time && !matches!(stat.state, 'Z' | 'X' | 'x')
        })
    })
}

/// Sends `signal` to the process (and to its group when it leads one), if it still runs.
pub(crate) fn signal_process(process: ProcessId, signal: Signal) {
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
    while any_running(processes) && tokio::time::Instant::now() < until {
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

    #[test]
    fn descendants_walk_the_tree_parents_first() {
        let stat = |ppid, start_time| ProcStat {
            state: 'S',
            ppid,
            pgrp: 1,
            start_time,
        };
        let table = vec![
            (0, stat(0, 1)),
            (1, stat(0, 2)),
            (30, stat(20, 3)),
            (20, stat(10, 4)),
            (10, stat(1, 5)),
            (11, stat(1, 6)),
            (99, stat(98, 7)),
        ];
        let pids: Vec<i32> = descendants_in(table.clone(), 1)
            .iter()
            .map(|(p, _)| p.pid)
            .collect();
        assert_eq!(pids, [10, 11, 20, 30]);
        let pids: Vec<i32> = descendants_in(table, 0)
            .iter()
            .map(|(p, _)| p.pid)
            .collect();
        assert_eq!(pids, [1, 10, 11, 20, 30]);
    }

    /// The `ps` path (macOS's) run for real: Linux's procps `ps` takes the same options.
    #[test]
    fn ps_sees_the_child_that_proc_sees() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let me = i32::try_from(std::process::id()).unwrap();
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();

        let from_proc = read_stat(pid).unwrap();
        let first = ps::read_one(pid).unwrap();
        let second = ps::read_one(pid).unwrap();
        let (_, in_table) = ps::read_table()
            .into_iter()
            .find(|(found, _)| *found == pid)
            .unwrap();
        assert_eq!((first.ppid, first.pgrp), (me, pid));
        assert_eq!((first.ppid, first.pgrp), (from_proc.ppid, from_proc.pgrp));
        assert_eq!(first.start_time, second.start_time);
        assert_eq!(in_table.start_time, first.start_time);
        assert!(
            first.start_time.abs_diff(started) < 120,
            "start {} is not about now {started}",
            first.start_time
        );
        assert!(!matches!(first.state, 'Z' | 'X' | 'x'));

        let found = descendants_in(ps::read_table(), me);
        assert!(
            found
                .iter()
                .any(|(p, stat)| p.pid == pid && stat.pgrp == pid)
        );

        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(ps::read_one(pid), None);
    }

    #[test]
    fn ps_marks_a_zombie() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = i32::try_from(child.id()).unwrap();
        let until = std::time::Instant::now() + Duration::from_secs(5);
        let mut state = None;
        while std::time::Instant::now() < until {
            state = ps::read_one(pid).map(|stat| stat.state);
            if state == Some('Z') {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(state, Some('Z'));
        child.wait().unwrap();
        assert_eq!(ps::read_one(pid), None);
    }
}
