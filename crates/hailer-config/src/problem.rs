//! Problems found in the configuration: what is wrong, where, and how to fix it.
//!
//! A [`Problem`] is plain data (serde) so it can travel over the daemon's API. Its `message`
//! is a complete sentence that already names the place (file and line, environment variable
//! or flag), the section, the key and the value as written; `hint` says how to fix it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Hailer cannot start with this configuration.
    Fatal,
    /// Hailer starts, ignoring or adjusting what the problem names.
    Warning,
}

/// Which part of the setup a problem is about, so `doctor` can group them in rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    /// The configuration itself: the file, the environment, the flags.
    Config,
    /// The notebook and notebooks folder the configuration names.
    Notebook,
    /// The data folder.
    Data,
    /// The kernel settings that depend on the machine (such as the Python for unsafe-local).
    Kernel,
    /// Settings that wait for `hailer trust` (see [`crate::Trust`]).
    Trust,
}

/// Where the value a problem is about came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// A configuration file; `line` is 1-based when known.
    File {
        /// The file, relative to the workspace when it is inside it.
        path: String,
        /// The 1-based line of the value; `None` when the problem has no single line.
        line: Option<usize>,
    },
    /// A `HAILER_*` environment variable of the client.
    Environment {
        /// The variable's name, such as `HAILER_KERNEL`.
        variable: String,
    },
    /// A command-line flag such as `--kernel`.
    Flag {
        /// The flag as written, with its dashes.
        flag: String,
    },
    /// The workspace layout (folders and files the configuration points at).
    Workspace {
        /// The folder or file on disk, relative to the workspace when it is inside it.
        path: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File {
                path,
                line: Some(line),
            } => write!(f, "{path}, line {line}"),
            Origin::File { path, line: None } => write!(f, "{path}"),
            Origin::Environment { .. } => write!(f, "environment"),
            Origin::Flag { .. } => write!(f, "command line"),
            Origin::Workspace { path } => write!(f, "{path}"),
        }
    }
}

/// One thing wrong with the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Whether the problem stops Hailer from starting.
    pub severity: Severity,
    /// Which part of the setup it is about; [`Area::Config`] unless a check says otherwise.
    pub area: Area,
    /// Where the value came from; `message` starts with this place.
    pub origin: Origin,
    /// The section, such as `kernel` or `model_providers.acme`, when the problem is in one.
    pub section: Option<String>,
    /// The key the problem is about, when there is one.
    pub key: Option<String>,
    /// The value as written. Never set for unknown or secret-looking keys.
    pub value: Option<String>,
    /// What is wrong, as a complete sentence that names the place.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl Problem {
    pub(crate) fn new(
        severity: Severity,
        origin: Origin,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        let message = format!("{origin}: {}", message.into());
        Self {
            severity,
            area: Area::Config,
            origin,
            section: None,
            key: None,
            value: None,
            message,
            hint: hint.into(),
        }
    }

    pub(crate) fn fatal(
        origin: Origin,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Fatal, origin, message, hint)
    }

    pub(crate) fn warning(
        origin: Origin,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Warning, origin, message, hint)
    }

    pub(crate) fn in_area(mut self, area: Area) -> Self {
        self.area = area;
        self
    }

    pub(crate) fn at(mut self, section: Option<&str>, key: Option<&str>) -> Self {
        self.section = section.map(str::to_owned);
        self.key = key.map(str::to_owned);
        self
    }

    pub(crate) fn with_value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }

    /// True for problems that stop Hailer from starting.
    pub fn is_fatal(&self) -> bool {
        self.severity == Severity::Fatal
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.hint.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}\n  {}", self.message, self.hint)
        }
    }
}

/// Every problem found by [`crate::check`], split by severity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Problems that stop Hailer from starting.
    pub fatal: Vec<Problem>,
    /// Problems Hailer starts with, ignoring or adjusting what they name.
    pub warnings: Vec<Problem>,
}

impl Report {
    pub(crate) fn push(&mut self, problem: Problem) {
        match problem.severity {
            Severity::Fatal => self.fatal.push(problem),
            Severity::Warning => self.warnings.push(problem),
        }
    }

    pub(crate) fn extend(&mut self, other: Report) {
        self.fatal.extend(other.fatal);
        self.warnings.extend(other.warnings);
    }

    /// True when nothing is fatal (warnings may remain).
    pub fn is_ok(&self) -> bool {
        self.fatal.is_empty()
    }

    /// True when there is neither a fatal problem nor a warning.
    pub fn is_clean(&self) -> bool {
        self.fatal.is_empty() && self.warnings.is_empty()
    }

    /// All problems, fatal first.
    pub fn all(&self) -> impl Iterator<Item = &Problem> {
        self.fatal.iter().chain(self.warnings.iter())
    }
}
