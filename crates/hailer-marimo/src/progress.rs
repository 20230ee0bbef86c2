//! What a long job (an environment set-up, an image build or download) reports as it goes:
//! named steps, counts where the total is known, notes for the user, and the installers' and
//! the engine's own output, which belongs in a log rather than on the screen.

/// One report of a long job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report<'a> {
    /// A step begins, with how many items it works through when that is known (packages,
    /// build steps, image layers).
    Step {
        /// What the step does, as a line for the user (`Installing packages`).
        name: &'a str,
        /// How many items the step works through; `None` when not known.
        total: Option<u64>,
    },
    /// How far the current step is.
    Count {
        /// Items finished so far.
        done: u64,
        /// The step's items in all, which may grow as a tool reveals more; `None` when not
        /// known.
        total: Option<u64>,
    },
    /// A line for the user.
    Note(&'a str),
    /// A line of a tool's own output (pip, uv, the Docker engine).
    Output(&'a str),
}

impl<'a> Report<'a> {
    /// The report's words, if it has any (a count has none).
    pub fn text(&self) -> Option<&'a str> {
        match *self {
            Report::Step { name, .. } => Some(name),
            Report::Note(line) | Report::Output(line) => Some(line),
            Report::Count { .. } => None,
        }
    }
}

/// Where a job sends its reports.
pub type Progress<'a> = &'a (dyn Fn(Report<'_>) + Send + Sync);

/// Counts the packages pip or uv has taken up from their output lines: pip's `Collecting` and
/// `Processing` lines (one per package), uv's `Resolved N packages` (the total) and its
/// `+ name==version` lines (one per installed package).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PackageCount {
    /// Packages pip or uv has reported taking up so far.
    pub done: u64,
    /// Packages expected: the starting guess, replaced by uv's `Resolved N`, and raised to
    /// `done` when more turn up; `None` when not known.
    pub total: Option<u64>,
}

impl PackageCount {
    /// A count expecting `total` packages (for instance the requirement lines).
    pub(crate) fn expecting(total: Option<u64>) -> Self {
        Self { done: 0, total }
    }

    /// Takes in one output line; true when the count changed.
    pub(crate) fn observe(&mut self, line: &str) -> bool {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("Resolved ")
            && let Some((number, _)) = rest.split_once(' ')
            && let Ok(resolved) = number.parse::<u64>()
        {
            self.total = Some(resolved);
            return true;
        }
        let one_more = line.starts_with("Collecting ")
            || line.starts_with("Processing ")
            || (line.starts_with("+ ") && line.contains("=="));
        if !one_more {
            return false;
        }
        self.done += 1;
        if let Some(total) = self.total
            && self.done > total
        {
            self.total = Some(self.done);
        }
        true
    }
}

/// How many packages a requirements text names (its lines that are neither blank, comments
/// nor options).
pub(crate) fn requirement_count(requirements: &str) -> u64 {
    let named = requirements
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty() && !line.starts_with('-'))
        .count();
    u64::try_from(named).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_and_uv_output_count_packages() {
        let mut pip = PackageCount::expecting(Some(2));
        for line in [
            "Looking in links: /wheels",
            "Collecting marimo==0.24.2 (from -r req.txt (line 1))",
            "  Using cached marimo-0.24.2-py3-none-any.whl",
            "Processing ./package",
            "Collecting polars==1.0",
        ] {
            pip.observe(line);
        }
        assert_eq!(
            pip,
            PackageCount {
                done: 3,
                total: Some(3)
            }
        );

        let mut uv = PackageCount::expecting(Some(50));
        assert!(uv.observe("Resolved 57 packages in 12ms"));
        assert!(!uv.observe("Installed 57 packages in 80ms"));
        assert!(uv.observe(" + marimo==0.24.2"));
        assert_eq!(
            uv,
            PackageCount {
                done: 1,
                total: Some(57)
            }
        );
    }

    #[test]
    fn requirements_are_counted_without_comments_or_options() {
        let text = "# pinned\nmarimo==0.24.2\n\n--only-binary :all:\npolars==1.0  # data\n";
        assert_eq!(requirement_count(text), 2);
    }
}
