//! How a child process ended, in the same terms on every system.

use std::process::ExitStatus;

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited with this code.
    Code(i32),
    /// A Unix signal ended it.
    Signal(i32),
    /// The system reports neither.
    Unknown,
}

/// The signal number Unix uses for SIGKILL (also what the out-of-memory killer sends).
pub const SIGKILL: i32 = 9;

/// What `status` says about how the process ended.
pub fn ending(status: &ExitStatus) -> Ending {
    if let Some(code) = status.code() {
        return Ending::Code(code);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return Ending::Signal(signal);
        }
    }
    Ending::Unknown
}

/// The name of Unix signal `number` (`SIGKILL`), or `signal N`.
pub fn signal_name(number: i32) -> String {
    let name = match number {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return format!("signal {number}"),
    };
    name.to_owned()
}

/// "exit code 1", "killed by signal 9", for messages.
pub fn describe(status: &ExitStatus) -> String {
    match ending(status) {
        Ending::Code(code) => format!("exit code {code}"),
        Ending::Signal(signal) => format!("killed by signal {signal}"),
        Ending::Unknown => "unknown exit status".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names() {
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(64), "signal 64");
    }

    #[cfg(unix)]
    #[test]
    fn unix_statuses_read_as_codes_or_signals() {
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(ending(&ExitStatus::from_raw(9)), Ending::Signal(9));
        assert_eq!(ending(&ExitStatus::from_raw(3 << 8)), Ending::Code(3));
        assert_eq!(describe(&ExitStatus::from_raw(9)), "killed by signal 9");
    }

    #[cfg(windows)]
    #[test]
    fn windows_statuses_are_codes() {
        use std::os::windows::process::ExitStatusExt as _;
        assert_eq!(ending(&ExitStatus::from_raw(3)), Ending::Code(3));
        assert_eq!(describe(&ExitStatus::from_raw(1)), "exit code 1");
    }
}
