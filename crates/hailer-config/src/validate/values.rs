//! Checked values built on [`Section`]'s typed getters: counts, choices, paths.

use std::path::{Path, PathBuf};

use super::section::{At, Section};
use crate::paths;
use crate::problem::Report;
use crate::schema::Choice;

/// Where relative paths of the file are resolved.
pub(crate) struct Place<'a> {
    pub workspace: &'a Path,
    pub home: Option<&'a Path>,
}

impl Section<'_, '_> {
    /// A whole number of at least `min` (0 or 1).
    pub(crate) fn count(
        &self,
        key: &str,
        example: &str,
        min: i64,
        report: &mut Report,
    ) -> Option<At<u64>> {
        let At { value, span } = self.integer(key, example, report)?;
        match u64::try_from(value) {
            Ok(count) if value >= min => Some(At { value: count, span }),
            _ => {
                let rule = if min > 0 {
                    "must be greater than 0"
                } else {
                    "cannot be negative"
                };
                report.push(self.fatal(
                    key,
                    &span,
                    format!("{} = {value} {rule}", self.label(key)),
                    format!(
                        "Write a whole number of at least {min}, for example {key} = {example}."
                    ),
                ));
                None
            }
        }
    }

    /// One word of a [`Choice`]; `what` names the kind of setting ("a log level").
    pub(crate) fn choice<T: Choice>(
        &self,
        key: &str,
        what: &str,
        report: &mut Report,
    ) -> Option<At<T>> {
        let example = format!(
            "\"{}\"",
            T::ALL.first().map(|c| c.word()).unwrap_or_default()
        );
        let At { value, span } = self.string(key, &example, report)?;
        match T::parse(value) {
            Some(choice) => Some(At {
                value: choice,
                span,
            }),
            None => {
                report.push(self.fatal(
                    key,
                    &span,
                    format!(
                        "{} = {} is not {what}",
                        self.label(key),
                        self.doc.written(&span)
                    ),
                    format!("Use {}.", T::list()),
                ));
                None
            }
        }
    }

    /// A non-empty string.
    pub(crate) fn text(&self, key: &str, example: &str, report: &mut Report) -> Option<At<&str>> {
        let At { value, span } = self.string(key, example, report)?;
        if value.trim().is_empty() {
            report.push(self.fatal(
                key,
                &span,
                format!("{} is empty", self.label(key)),
                format!("Write a value, for example {key} = {example}, or delete the line for the default."),
            ));
            return None;
        }
        Some(At { value, span })
    }

    /// A path, resolved against the workspace (`~/` against the home folder).
    pub(crate) fn path(
        &self,
        key: &str,
        example: &str,
        place: &Place<'_>,
        report: &mut Report,
    ) -> Option<At<PathBuf>> {
        let At { value, span } = self.text(key, example, report)?;
        if value.contains('\0') {
            report.push(self.fatal(
                key,
                &span,
                format!("{} contains a NUL character", self.label(key)),
                format!("Write a plain path, for example {key} = {example}."),
            ));
            return None;
        }
        Some(At {
            value: paths::resolve_setting(place.workspace, place.home, value),
            span,
        })
    }

    /// A program: a path (resolved against the workspace, `~/` against the home folder) or a
    /// bare command name looked up on PATH when it runs. Control characters are refused: the
    /// value is shown to the user for review, and must read as what runs.
    pub(crate) fn program(
        &self,
        key: &str,
        example: &str,
        place: &Place<'_>,
        report: &mut Report,
    ) -> Option<PathBuf> {
        let At { value, span } = self.text(key, example, report)?;
        let written = value.trim();
        if crate::sanitize::has_control(written) {
            report.push(self.fatal_unquoted(
                key,
                &span,
                format!(
                    "{} = \"{}\" has control characters in it",
                    self.label(key),
                    crate::sanitize::escape_visible(written)
                ),
                format!("Write the program's plain path or name, for example {key} = {example}."),
            ));
            return None;
        }
        Some(
            if written.contains(['/', '\\']) || written.starts_with('~') {
                paths::resolve_setting(place.workspace, place.home, written)
            } else {
                PathBuf::from(written)
            },
        )
    }
}
