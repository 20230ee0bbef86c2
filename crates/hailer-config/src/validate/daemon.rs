//! `[daemon]` and `[checks]`: small sections of switches and durations.

use super::Place;
use super::section::Section;
use crate::keys::{CHECKS_KEYS, DAEMON_KEYS};
use crate::problem::Report;
use crate::schema::{ChecksSettings, DaemonSettings, defaults};

pub(crate) fn read_daemon(section: &Section<'_, '_>, report: &mut Report) -> DaemonSettings {
    let session_linger_secs = section
        .count("session_linger_secs", "300", 0, report)
        .map_or(defaults::SESSION_LINGER_SECS, |at| at.value);
    section.warn_unknown_keys(DAEMON_KEYS, report);
    DaemonSettings {
        session_linger_secs,
    }
}

pub(crate) fn read_checks(
    section: &Section<'_, '_>,
    place: &Place<'_>,
    report: &mut Report,
) -> ChecksSettings {
    let mut switch = |key: &str| section.boolean(key, true, report).is_none_or(|at| at.value);
    let lint = switch("lint");
    let typecheck = switch("typecheck");
    let format = switch("format");
    let mut program = |key: &str, example: &str| section.program(key, example, place, report);
    let settings = ChecksSettings {
        lint,
        typecheck,
        format,
        ruff: program("ruff", "\"/usr/local/bin/ruff\""),
        ty: program("ty", "\"/usr/local/bin/ty\""),
    };
    section.warn_unknown_keys(CHECKS_KEYS, report);
    settings
}
