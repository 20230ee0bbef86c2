//! What was last copied, per notebook, for one session; and what a copy pass reports.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::allow_list::Refusal;

/// The digest a notebook is compared by: sha256 of its text with CRLF as LF.
pub(crate) fn digest(text: &str) -> String {
    let mut hasher = Sha256::new();
    if text.contains("\r\n") {
        hasher.update(text.replace("\r\n", "\n").as_bytes());
    } else {
        hasher.update(text.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// How the kernel last showed a file: its modification time and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelStamp {
    /// The modification time marimo's file API reports (seconds since the Unix epoch, with
    /// a fraction); only ever compared for equality with an earlier stamp.
    pub modified: f64,
    /// The file's size in bytes, as the kernel reports it.
    pub size: u64,
}

/// One notebook as last copied (in or back).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Copied {
    pub digest: String,
    pub stamp: Option<KernelStamp>,
}

/// A session's memory of its copies. Keep one per kernel.
#[derive(Debug, Default)]
pub struct CopyState {
    pub(crate) copied: HashMap<String, Copied>,
    /// Notebooks the kernel created that were copied back, and their bytes.
    pub(crate) new_notebooks: usize,
    pub(crate) new_bytes: u64,
    /// Warnings given already (each is given once).
    warned: HashSet<String>,
}

impl CopyState {
    /// A state that remembers no copies: for a fresh kernel, before [`super::copy_in`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The digest of `name` as last copied.
    pub fn digest_of(&self, name: &str) -> Option<&str> {
        self.copied.get(name).map(|c| c.digest.as_str())
    }

    /// How many notebooks are remembered.
    pub fn len(&self) -> usize {
        self.copied.len()
    }

    /// Whether no notebook is remembered, as before the first copy.
    pub fn is_empty(&self) -> bool {
        self.copied.is_empty()
    }

    pub(crate) fn remember(&mut self, name: &str, digest: String, stamp: Option<KernelStamp>) {
        self.copied
            .insert(name.to_owned(), Copied { digest, stamp });
    }

    /// `warning` unless it was given before.
    pub(crate) fn first_time(&mut self, warning: String) -> Option<String> {
        self.warned.insert(warning.clone()).then_some(warning)
    }
}

/// Which way a copy went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From this machine's notebooks folder into the kernel ([`super::copy_in`]).
    IntoKernel,
    /// From the kernel back into this machine's notebooks folder ([`super::copy_back`]).
    BackFromKernel,
}

/// What one copy pass did.
#[derive(Debug, Clone, PartialEq)]
pub struct CopyReport {
    /// Which way this pass copied; it picks the wording of [`CopyReport::refused_line`].
    pub direction: Direction,
    /// Names copied.
    pub copied: Vec<String>,
    /// Names found unchanged and skipped.
    pub unchanged: usize,
    /// Backups made of notebooks changed on both sides.
    pub backups: Vec<PathBuf>,
    /// Names left where they are, and why.
    pub refused: Vec<(String, Refusal)>,
    /// Problems worth a line each (each given once per session).
    pub warnings: Vec<String>,
    /// The pass ran out of time or bytes; the rest follows on the next pass.
    pub cut_short: bool,
}

/// How many refused names the summary line shows.
const SHOWN_REFUSALS: usize = 5;

impl CopyReport {
    pub(crate) fn new(direction: Direction) -> Self {
        Self {
            direction,
            copied: Vec::new(),
            unchanged: 0,
            backups: Vec::new(),
            refused: Vec::new(),
            warnings: Vec::new(),
            cut_short: false,
        }
    }

    /// One line naming what was not copied, or `None` when everything was.
    pub fn refused_line(&self) -> Option<String> {
        if self.refused.is_empty() {
            return None;
        }
        let shown: Vec<String> = self
            .refused
            .iter()
            .take(SHOWN_REFUSALS)
            .map(|(name, why)| format!("{} ({why})", printable(name)))
            .collect();
        let more = self.refused.len().saturating_sub(SHOWN_REFUSALS);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let lead = match self.direction {
            Direction::IntoKernel => "Not copied into the kernel",
            Direction::BackFromKernel => "Not copied back from the kernel",
        };
        Some(format!("{lead}: {}{tail}.", shown.join(", ")))
    }
}

/// `name` with characters a terminal would act on replaced by `?`.
fn printable(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_ignore_line_endings() {
        assert_eq!(digest("a\r\nb\r\n"), digest("a\nb\n"));
        assert_ne!(digest("a\nb"), digest("a\nc"));
    }

    #[test]
    fn the_refused_line_shows_five_names_and_counts_the_rest() {
        let mut report = CopyReport::new(Direction::BackFromKernel);
        for index in 0..7 {
            report
                .refused
                .push((format!("n{index}\u{1b}.py"), Refusal::Hidden));
        }
        let line = report.refused_line().unwrap_or_default();
        assert!(line.starts_with("Not copied back from the kernel: n0?.py (hidden or private)"));
        assert!(line.ends_with(" and 2 more."), "{line}");
        assert!(!line.contains('\u{1b}'));
        assert!(
            CopyReport::new(Direction::IntoKernel)
                .refused_line()
                .is_none()
        );
    }

    #[test]
    fn warnings_are_given_once() {
        let mut state = CopyState::new();
        assert!(state.first_time("x".to_owned()).is_some());
        assert!(state.first_time("x".to_owned()).is_none());
    }
}
