//! The process table read from `ps`, for Unix systems without `/proc` (macOS).
//!
//! `ps -o pid=,ppid=,pgid=,state=,lstart=` runs with `TZ=UTC0` and `LC_ALL=C`, so `lstart` reads
//! like `Wed Dec  2 04:20:13 2026` in UTC; it is parsed into seconds since the Unix epoch, which is
//! the process's `start_time` here (the same value for the same process on every read). Linux's
//! procps `ps` takes the same options.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;

use super::ProcStat;

/// How long one `ps` may take before it is killed and its answer dropped.
const TIMEOUT: Duration = Duration::from_secs(5);
/// The most output read from one `ps` (a process table is far smaller).
const MAX_OUTPUT: u64 = 16 * 1024 * 1024;
/// A line longer than this is no line of ours.
const MAX_LINE: usize = 256;
const COLUMNS: &str = "pid=,ppid=,pgid=,state=,lstart=";

/// Every process `ps` lists.
pub(super) fn read_table() -> Vec<(i32, ProcStat)> {
    run_ps(&["-A", "-o", COLUMNS])
        .map(|text| parse_table(&text))
        .unwrap_or_default()
}

/// Process `pid`, if `ps` lists it.
pub(super) fn read_one(pid: i32) -> Option<ProcStat> {
    if pid <= 0 {
        return None;
    }
    let text = run_ps(&["-o", COLUMNS, "-p", &pid.to_string()])?;
    parse_table(&text)
        .into_iter()
        .find_map(|(found, stat)| (found == pid).then_some(stat))
}

/// Every well-formed line of `ps`'s output; the others are skipped.
pub(super) fn parse_table(text: &str) -> Vec<(i32, ProcStat)> {
    text.lines().filter_map(parse_line).collect()
}

/// One line: pid, ppid, pgid, state and the five words of `lstart`.
pub(super) fn parse_line(line: &str) -> Option<(i32, ProcStat)> {
    if line.len() > MAX_LINE {
        return None;
    }
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [pid, ppid, pgid, state, _weekday, month, day, time, year] = fields.as_slice() else {
        return None;
    };
    let pid: i32 = pid.parse().ok()?;
    if pid < 0 {
        return None;
    }
    Some((
        pid,
        ProcStat {
            state: map_state(state)?,
            ppid: ppid.parse().ok()?,
            pgrp: pgid.parse().ok()?,
            start_time: parse_lstart(month, day, time, year)?,
        },
    ))
}

/// The state letter with `/proc`'s meaning: macOS's `U` (uninterruptible wait) is Linux's `D`,
/// its `I` (idle: asleep for more than about 20 seconds) is `S`; `Z` (zombie) and the rest are
/// the same letters. The flags after the first letter (`s`, `+`, `<`, ...) are dropped.
pub(super) fn map_state(text: &str) -> Option<char> {
    match text.chars().next()? {
        'U' => Some('D'),
        'I' => Some('S'),
        letter if letter.is_ascii_alphabetic() => Some(letter),
        _ => None,
    }
}

/// Seconds since the Unix epoch of `lstart`'s UTC month (`Dec`), day, `hh:mm:ss` and year.
pub(super) fn parse_lstart(month: &str, day: &str, time: &str, year: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = i8::try_from(MONTHS.iter().position(|m| *m == month)? + 1).ok()?;
    let year: i16 = digits(year)?;
    let mut clock = time.split(':');
    let (Some(hours), Some(minutes), Some(seconds), None) =
        (clock.next(), clock.next(), clock.next(), clock.next())
    else {
        return None;
    };
    if !(1970..=9999).contains(&year) {
        return None;
    }
    // jiff checks the date (29 February only in leap years) and the time of day.
    let date = Date::new(year, month, digits(day)?).ok()?;
    let time = Time::new(digits(hours)?, digits(minutes)?, digits(seconds)?, 0).ok()?;
    let at = TimeZone::UTC.to_timestamp(date.to_datetime(time)).ok()?;
    u64::try_from(at.as_second()).ok()
}

/// A number written with ASCII digits only (no sign, no spaces), at most 4 of them.
fn digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || text.len() > 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `ps`'s output, or `None` when it cannot run, fails or outlasts [`TIMEOUT`].
fn run_ps(args: &[&str]) -> Option<String> {
    let program = if std::path::Path::new("/bin/ps").exists() {
        "/bin/ps"
    } else {
        "ps"
    };
    let mut child = Command::new(program)
        .args(args)
        .env("TZ", "UTC0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout.take(MAX_OUTPUT).read_to_end(&mut bytes);
        let _ = sender.send(read.map(|_| bytes));
    });
    let Ok(Ok(bytes)) = receiver.recv_timeout(TIMEOUT) else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    // `ps -p` of a pid that is gone fails: no process.
    if !child.wait().ok()?.success() {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn stat(state: char, ppid: i32, pgrp: i32, start_time: u64) -> ProcStat {
        ProcStat {
            state,
            ppid,
            pgrp,
            start_time,
        }
    }

    #[test]
    fn parses_lines() {
        // 2026-12-02T04:20:13Z
        let start = 1_796_185_213;
        let long = format!("1 1 1 S Wed Dec  2 04:20:13 2026 {}", "x".repeat(300));
        let padded = format!("{}1 1 1 S Wed Dec  2 04:20:13 2026", " ".repeat(240));
        let cases: &[(&str, Option<(i32, ProcStat)>)] = &[
            (
                "  412     1   412 Ss   Wed Dec  2 04:20:13 2026",
                Some((412, stat('S', 1, 412, start))),
            ),
            (
                "412 1 412 R+ Wed Dec 2 04:20:13 2026",
                Some((412, stat('R', 1, 412, start))),
            ),
            (
                "\t7\t\t3  3 Z Wed Dec  2 04:20:13 2026  ",
                Some((7, stat('Z', 3, 3, start))),
            ),
            (
                "9 1 9 U Wed Dec  2 04:20:13 2026",
                Some((9, stat('D', 1, 9, start))),
            ),
            (
                "9 1 9 Is Wed Dec  2 04:20:13 2026",
                Some((9, stat('S', 1, 9, start))),
            ),
            (
                "0 0 0 Ss Thu Jan  1 00:00:00 1970",
                Some((0, stat('S', 0, 0, 0))),
            ),
            (
                "5 1 5 S Thu Feb 29 23:59:59 2024",
                Some((5, stat('S', 1, 5, 1_709_251_199))),
            ),
            ("", None),
            ("   ", None),
            ("PID PPID PGID STAT STARTED", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13", None),
            ("412 1 Ss Wed Dec  2 04:20:13 2026", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13 2026 extra", None),
            ("abc 1 412 Ss Wed Dec  2 04:20:13 2026", None),
            ("-4 1 412 Ss Wed Dec  2 04:20:13 2026", None),
            ("412 x 412 Ss Wed Dec  2 04:20:13 2026", None),
            ("412 1 4.2 Ss Wed Dec  2 04:20:13 2026", None),
            ("99999999999 1 1 S Wed Dec  2 04:20:13 2026", None),
            ("412 1 412 ? Wed Dec  2 04:20:13 2026", None),
            ("412 1 412 Ss Wed Dez  2 04:20:13 2026", None),
            ("412 1 412 Ss Wed Dec 32 04:20:13 2026", None),
            ("412 1 412 Ss Wed Feb 29 04:20:13 2026", None),
            ("412 1 412 Ss Wed Dec  2 24:00:00 2026", None),
            ("412 1 412 Ss Wed Dec  2 04:20 2026", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13:01 2026", None),
            ("412 1 412 Ss Wed Dec  2 04:+2:13 2026", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13 1969", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13 +2026", None),
            ("412 1 412 Ss Wed Dec  2 04:20:13 20260", None),
            ("412 1 412 Ss Wed Dec -2 04:20:13 2026", None),
            ("412 1 412 Ss Mi 2 Dez 04:20:13 2026", None),
            (&long, None),
            (&padded, None),
        ];
        for (line, expected) in cases {
            assert_eq!(parse_line(line), *expected, "{line:?}");
        }
    }

    #[test]
    fn a_table_keeps_the_good_lines() {
        let text = "  1  0  1 Ss Wed Dec  2 04:20:13 2026\n\
                    garbage\n\
                    \n\
                    \u{fffd}\u{fffd} 1 2 S Wed Dec  2 04:20:13 2026\n\
                    2  1  2 S  Wed Dec  2 04:20:14 2026\r\n";
        assert_eq!(
            parse_table(text),
            [
                (1, stat('S', 0, 1, 1_796_185_213)),
                (2, stat('S', 1, 2, 1_796_185_214)),
            ]
        );
        assert_eq!(parse_table(""), []);
    }

    #[test]
    fn lstart_counts_seconds_since_the_epoch() {
        assert_eq!(parse_lstart("Jan", "1", "00:00:00", "1970"), Some(0));
        assert_eq!(
            parse_lstart("Mar", "1", "00:00:00", "2000"),
            Some(951_868_800)
        );
        assert_eq!(
            parse_lstart("Dec", "31", "23:59:59", "1999"),
            Some(946_684_799)
        );
        assert_eq!(
            parse_lstart("Feb", "29", "00:00:00", "2000"),
            Some(951_782_400)
        );
        assert_eq!(parse_lstart("Feb", "29", "00:00:00", "1900"), None);
        assert_eq!(parse_lstart("dec", "2", "04:20:13", "2026"), None);
    }
}
