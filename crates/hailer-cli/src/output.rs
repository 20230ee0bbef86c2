//! Command output on standard output, written through [`std::io::Write`] so that a closed
//! standard output is an error the command returns, not a panic.
//!
//! A reader that stops early (`hailer run --json ... | head -1`) closes the pipe and the next
//! write fails with [`io::ErrorKind::BrokenPipe`]. That is no failure of the command: the error
//! travels up to [`settle`], which ends the program quietly with 0. Only a write of this module
//! counts: a broken pipe elsewhere (the daemon's connection, a child's input) stays an error.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

/// `println!` to standard output that returns the write's [`io::Result`] instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::write_line(&mut ::std::io::stdout().lock(), format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::write_line(&mut ::std::io::stdout().lock(), format_args!($($arg)*))
    };
}

/// `print!` to standard output that returns the write's [`io::Result`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_text(&mut ::std::io::stdout().lock(), format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

/// The reader of standard output has gone: what a broken pipe of [`write_line`] or
/// [`write_text`] carries, so [`settle`] knows it from other broken pipes.
#[derive(Debug)]
struct ReaderGone;

impl fmt::Display for ReaderGone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the reader of standard output has gone")
    }
}

impl std::error::Error for ReaderGone {}

/// Writes `args` and a newline to `out`.
pub(crate) fn write_line(out: &mut impl Write, args: fmt::Arguments<'_>) -> io::Result<()> {
    writeln!(out, "{args}").map_err(mark)
}

/// Writes `args` to `out` as they are.
pub(crate) fn write_text(out: &mut impl Write, args: fmt::Arguments<'_>) -> io::Result<()> {
    out.write_fmt(args).map_err(mark)
}

/// A broken pipe becomes [`ReaderGone`]; every other error stays as it is.
fn mark(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, ReaderGone)
    } else {
        error
    }
}

/// Whether `error` is, or was caused by, standard output's reader having gone.
fn is_reader_gone(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .filter(|io_error| io_error.kind() == io::ErrorKind::BrokenPipe)
            .and_then(io::Error::get_ref)
            .is_some_and(|inner| inner.downcast_ref::<ReaderGone>().is_some())
    })
}

/// A command's outcome as the exit code, or the error to report: a closed standard output ends
/// quietly with 0.
pub(crate) fn settle(outcome: anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match outcome {
        Err(error) if is_reader_gone(&error) => Ok(ExitCode::SUCCESS),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use std::io::{self, Write};
    use std::process::ExitCode;

    use anyhow::Context as _;

    use super::{settle, write_line, write_text};

    /// A standard output whose reader has gone.
    struct ClosedPipe;

    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::ErrorKind::BrokenPipe.into())
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::ErrorKind::BrokenPipe.into())
        }
    }

    /// A command that prints two lines, the way commands print.
    fn command(out: &mut impl Write) -> anyhow::Result<ExitCode> {
        write_line(out, format_args!("first {}", 1))?;
        write_text(out, format_args!("second"))?;
        Ok(ExitCode::from(3))
    }

    #[test]
    fn a_closed_standard_output_ends_the_command_quietly_with_0() {
        let outcome = command(&mut ClosedPipe);
        assert!(
            outcome.is_err(),
            "the write's error reaches the command's caller"
        );
        assert_eq!(settle(outcome).ok(), Some(ExitCode::SUCCESS));
        let wrapped = command(&mut ClosedPipe).context("printing the status");
        assert_eq!(settle(wrapped).ok(), Some(ExitCode::SUCCESS));
    }

    #[test]
    fn output_that_is_read_keeps_the_command_s_code() {
        let mut written = Vec::new();
        assert_eq!(settle(command(&mut written)).ok(), Some(ExitCode::from(3)));
        assert_eq!(written, b"first 1\nsecond");
    }

    #[test]
    fn other_errors_and_other_broken_pipes_are_still_reported() {
        let full: anyhow::Result<ExitCode> = Err(io::Error::other("no space left").into());
        assert!(settle(full).is_err());
        let daemon: anyhow::Result<ExitCode> =
            Err(io::Error::from(io::ErrorKind::BrokenPipe)).context("hailerd hung up");
        assert!(settle(daemon).is_err());
    }
}
