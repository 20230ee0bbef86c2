//! The kernel settings a user changes in `hailer.toml` (or with `--kernel`): a running kernel
//! started with other ones is restarted to apply them, and every client is told what changes.

use std::path::PathBuf;

use hailer_config::Runtime;

use hailerd_kernel::KernelSpec;

/// What a kernel was started with, as far as the user can change it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSettings {
    /// The runtime.
    pub runtime: Runtime,
    /// The docker image (`None`: the default one); unset for unsafe-local.
    pub image: Option<String>,
    /// The memory limit as written, when one is set.
    pub memory: Option<String>,
    /// The CPU limit, when one is set.
    pub cpus: Option<f64>,
    /// Whether the kernel may use the network, when set.
    pub network: Option<bool>,
    /// The data folder.
    pub data_dir: PathBuf,
    /// The notebooks folder.
    pub notebooks_dir: PathBuf,
    /// The Python the managed environment is made from, when one is named.
    pub python: Option<PathBuf>,
}

impl KernelSettings {
    pub(super) fn of(spec: &KernelSpec) -> Self {
        let docker = spec.docker.as_ref();
        Self {
            runtime: spec.runtime,
            image: docker.and_then(|docker| docker.image.clone()),
            memory: docker.map(|docker| docker.memory.to_string()),
            cpus: docker.map(|docker| docker.cpus),
            network: docker.map(|docker| docker.network),
            data_dir: spec.workspace_data.clone(),
            notebooks_dir: spec.notebooks_dir.clone(),
            python: (spec.runtime == Runtime::UnsafeLocal)
                .then(|| spec.python.clone())
                .flatten(),
        }
    }

    /// Each setting that differs, as `name old → new`, in a fixed order.
    pub(super) fn changes_to(&self, next: &Self) -> Vec<String> {
        let mut changes = Vec::new();
        let mut compare = |name: &str, old: String, new: String| {
            if old != new {
                changes.push(format!("{name} {old} → {new}"));
            }
        };
        compare(
            "runtime",
            self.runtime.to_string(),
            next.runtime.to_string(),
        );
        let docker_only = |value: Option<String>| value.unwrap_or_else(|| "none".to_owned());
        if self.runtime == Runtime::Docker && next.runtime == Runtime::Docker {
            let image = |image: &Option<String>| {
                image
                    .clone()
                    .unwrap_or_else(|| "the default image".to_owned())
            };
            compare("image", image(&self.image), image(&next.image));
            compare(
                "memory",
                docker_only(self.memory.clone()),
                docker_only(next.memory.clone()),
            );
            compare(
                "cpus",
                docker_only(self.cpus.map(|cpus| cpus.to_string())),
                docker_only(next.cpus.map(|cpus| cpus.to_string())),
            );
            let network = |on: Option<bool>| match on {
                Some(true) => "on".to_owned(),
                _ => "off".to_owned(),
            };
            compare("network", network(self.network), network(next.network));
        }
        if self.runtime == Runtime::UnsafeLocal && next.runtime == Runtime::UnsafeLocal {
            let python = |python: &Option<PathBuf>| {
                python.as_ref().map_or_else(
                    || "the newest on PATH".to_owned(),
                    |path| path.display().to_string(),
                )
            };
            compare("python", python(&self.python), python(&next.python));
        }
        compare(
            "data folder",
            self.data_dir.display().to_string(),
            next.data_dir.display().to_string(),
        );
        compare(
            "notebooks folder",
            self.notebooks_dir.display().to_string(),
            next.notebooks_dir.display().to_string(),
        );
        changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docker() -> KernelSettings {
        KernelSettings {
            runtime: Runtime::Docker,
            image: None,
            memory: Some("2g".to_owned()),
            cpus: Some(2.0),
            network: Some(false),
            data_dir: PathBuf::from("/w/data"),
            notebooks_dir: PathBuf::from("/w/notebooks"),
            python: None,
        }
    }

    fn local() -> KernelSettings {
        KernelSettings {
            runtime: Runtime::UnsafeLocal,
            image: None,
            memory: None,
            cpus: None,
            network: None,
            data_dir: PathBuf::from("/w/data"),
            notebooks_dir: PathBuf::from("/w/notebooks"),
            python: None,
        }
    }

    #[test]
    fn each_change_is_named_with_its_old_and_new_value() {
        let cases: Vec<(KernelSettings, KernelSettings, Vec<&str>)> = vec![
            (docker(), docker(), vec![]),
            (
                docker(),
                KernelSettings {
                    memory: Some("4g".to_owned()),
                    ..docker()
                },
                vec!["memory 2g → 4g"],
            ),
            (
                docker(),
                KernelSettings {
                    cpus: Some(0.5),
                    network: Some(true),
                    image: Some("mine:1".to_owned()),
                    ..docker()
                },
                vec![
                    "image the default image → mine:1",
                    "cpus 2 → 0.5",
                    "network off → on",
                ],
            ),
            (docker(), local(), vec!["runtime docker → unsafe-local"]),
            (
                local(),
                KernelSettings {
                    python: Some(PathBuf::from("/opt/py")),
                    data_dir: PathBuf::from("/w/my-data"),
                    ..local()
                },
                vec![
                    "python the newest on PATH → /opt/py",
                    "data folder /w/data → /w/my-data",
                ],
            ),
        ];
        for (old, new, expected) in cases {
            assert_eq!(old.changes_to(&new), expected, "{old:?} → {new:?}");
            assert_eq!(old == new, expected.is_empty());
        }
    }
}
