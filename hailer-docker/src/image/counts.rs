//! Counts read from the engine's streams: a build's `Step N/M` lines (the classic builder) and
//! a download's layers.

use std::collections::BTreeSet;

/// The step a classic build's output line starts (`Step 3/12 : RUN ...`): `(3, 12)`.
pub(super) fn build_step(line: &str) -> Option<(u64, u64)> {
    let rest = line.trim_start().strip_prefix("Step ")?;
    let (numbers, _) = rest.split_once(' ').unwrap_or((rest, ""));
    let (done, total) = numbers.split_once('/')?;
    Some((done.parse().ok()?, total.parse().ok()?))
}

/// The layers of a download, from the engine's status lines.
#[derive(Debug, Default)]
pub(super) struct LayerCount {
    seen: BTreeSet<String>,
    finished: BTreeSet<String>,
}

impl LayerCount {
    /// Takes in the status `status` of the item `id`; true when a count changed.
    pub(super) fn observe(&mut self, id: &str, status: &str) -> bool {
        let layer_status = [
            "Pulling fs layer",
            "Waiting",
            "Downloading",
            "Verifying Checksum",
            "Download complete",
            "Extracting",
            "Pull complete",
            "Already exists",
        ];
        if !layer_status.iter().any(|known| status.starts_with(known)) {
            return false;
        }
        let mut changed = self.seen.insert(id.to_owned());
        if status.starts_with("Pull complete") || status.starts_with("Already exists") {
            changed |= self.finished.insert(id.to_owned());
        }
        changed
    }

    /// Layers finished, and layers known.
    pub(super) fn counts(&self) -> (u64, u64) {
        let count = |set: &BTreeSet<String>| u64::try_from(set.len()).unwrap_or(u64::MAX);
        (count(&self.finished), count(&self.seen))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_steps_are_read_from_the_classic_builder() {
        assert_eq!(build_step("Step 3/12 : RUN pip install"), Some((3, 12)));
        assert_eq!(build_step("Step 1/2"), Some((1, 2)));
        assert_eq!(build_step(" ---> Running in 1234"), None);
        assert_eq!(build_step("Step x/y : FROM"), None);
    }

    #[test]
    fn layers_are_counted_once_each() {
        let mut layers = LayerCount::default();
        assert!(!layers.observe("3.13-slim", "Pulling from library/python"));
        assert!(layers.observe("a1", "Pulling fs layer"));
        assert!(layers.observe("b2", "Already exists"));
        assert!(!layers.observe("a1", "Downloading"));
        assert!(layers.observe("a1", "Pull complete"));
        assert_eq!(layers.counts(), (2, 2));
    }
}
