//! Counts read from the engine's streams: a BuildKit build's steps and a download's layers.

use std::collections::{BTreeMap, BTreeSet};

/// The stage and step a BuildKit step's name gives (`[build 3/6] RUN ...`): `("build", 3, 6)`.
/// Steps of BuildKit's own (`[internal] load .dockerignore`) have none.
pub(super) fn build_step(name: &str) -> Option<(&str, u64, u64)> {
    let rest = name.trim_start().strip_prefix('[')?;
    let (inside, _) = rest.split_once(']')?;
    let (stage, numbers) = inside.rsplit_once(' ')?;
    let (step, steps) = numbers.split_once('/')?;
    Some((stage, step.parse().ok()?, steps.parse().ok()?))
}

/// The steps of a BuildKit build across its stages, from each stage's `N/M`: steps reached and
/// steps known. A stage's steps run in order, so reaching step N means the ones before it are
/// done, even one BuildKit shares with another stage and names only once (a second `FROM` of
/// the same image).
#[derive(Debug, Default)]
pub(super) struct StepCount {
    /// Per stage: the furthest step reached, and its steps.
    stages: BTreeMap<String, (u64, u64)>,
}

impl StepCount {
    /// Takes in the step named `name` as reached; true when a count changed.
    pub(super) fn observe(&mut self, name: &str) -> bool {
        let Some((stage, step, steps)) = build_step(name) else {
            return false;
        };
        let entry = self.stages.entry(stage.to_owned()).or_insert((0, steps));
        let before = *entry;
        *entry = (entry.0.max(step).min(steps), steps);
        *entry != before
    }

    /// Steps reached, and steps known.
    pub(super) fn counts(&self) -> (u64, u64) {
        self.stages
            .values()
            .fold((0, 0), |(done, total), (reached, steps)| {
                (done + reached, total + steps)
            })
    }
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
    fn build_steps_are_read_from_buildkit_step_names() {
        assert_eq!(
            build_step("[build 3/6] RUN pip install"),
            Some(("build", 3, 6))
        );
        assert_eq!(build_step("[stage-1 1/4] FROM x"), Some(("stage-1", 1, 4)));
        assert_eq!(build_step("[internal] load .dockerignore"), None);
        assert_eq!(build_step("[build x/y] COPY"), None);
        let mut steps = StepCount::default();
        assert!(steps.observe("[build 1/6] FROM base"));
        assert!(!steps.observe("[build 1/6] FROM base"));
        assert!(!steps.observe("[internal] load metadata"));
        assert!(steps.observe("[stage-1 2/4] COPY --from=build"));
        assert_eq!(steps.counts(), (3, 10));
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
