//! What the sandbox shows its program: a pure plan of mounts and the Landlock rules over the same
//! paths, decided from the paths the daemon gives and what the host holds at them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The system's read-only folders shown in the sandbox when the host has them: programs,
/// libraries and `/etc` (less its secrets, see [`HIDDEN_SYSTEM_PATHS`]).
pub(crate) const SYSTEM_PATHS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/nix/store",
];

/// Files and folders of `/etc` covered in the sandbox: a user that is root on the host owns them,
/// and would read them through the read-only `/etc` otherwise.
pub(crate) const HIDDEN_SYSTEM_PATHS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/docker",
];

/// The system folder whose private entries are covered too: every file others may not read, and
/// every folder others may not list or enter ([`is_private`]), found when the sandbox starts.
/// When the daemon runs as root, the sandbox's user is root on the host, and would read them.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const PRIVATE_ENTRIES_UNDER: &str = "/etc";

/// An entry under [`PRIVATE_ENTRIES_UNDER`] as the host holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemEntry {
    /// Its path.
    pub path: PathBuf,
    /// Whether it is a folder.
    pub dir: bool,
    /// Its permission bits.
    pub mode: u32,
}

/// Whether an entry with `mode` is kept from others on the host: a file they may not read, a
/// folder they may not list or enter.
pub(crate) fn is_private(dir: bool, mode: u32) -> bool {
    let others = if dir { 0o005 } else { 0o004 };
    mode & others != others
}

/// The device files bound into the sandbox's own `/dev`.
pub(crate) const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The folder the daemon starts the sandbox with, as the launcher receives it (JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPlan {
    /// The program's working folder (the workspace; only the folders below are in it).
    pub workspace: PathBuf,
    /// The user's home: an empty private folder in the sandbox.
    pub home: PathBuf,
    /// The notebooks folder, bound writable (the same path as on the host).
    pub notebooks: PathBuf,
    /// The workspace's data folder, bound read-only.
    pub data: PathBuf,
    /// Further read-only folders: the kernel's environment and the Python it was made from.
    pub environment: Vec<PathBuf>,
    /// Resource limits.
    pub limits: Limits,
}

/// The limits the sandbox sets on its processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// At most this many processes of the user (`RLIMIT_NPROC`).
    pub processes: u64,
    /// At most this many bytes of data memory per process (`RLIMIT_DATA`).
    pub memory_bytes: u64,
}

/// What the host holds at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathKind {
    /// Nothing.
    Missing,
    /// A folder.
    Dir,
    /// A file (or a device).
    File,
    /// A symbolic link to this target.
    Symlink(PathBuf),
}

/// One step of building the sandbox's root, in order. Paths are as the sandbox sees them (the
/// same as on the host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountOp {
    /// A fresh, empty, writable memory folder.
    Tmpfs {
        /// Where.
        path: PathBuf,
    },
    /// The host's `source` shown at `path`.
    Bind {
        /// The host's path.
        source: PathBuf,
        /// Where the sandbox sees it.
        path: PathBuf,
        /// Writable, or read-only.
        writable: bool,
    },
    /// A symbolic link (a merged `/usr` system's `/bin` to `usr/bin`).
    Symlink {
        /// What the link points to.
        target: PathBuf,
        /// The link.
        path: PathBuf,
    },
    /// The sandbox's own `/proc`, showing only its processes.
    Proc,
    /// An empty, read-only cover over a secret file or folder.
    Hide {
        /// What is covered.
        path: PathBuf,
        /// Whether it is a folder (covered by an empty folder) or a file (by `/dev/null`).
        dir: bool,
    },
}

impl MountOp {
    /// The path in the sandbox this step makes.
    pub fn path(&self) -> &Path {
        match self {
            Self::Tmpfs { path }
            | Self::Bind { path, .. }
            | Self::Symlink { path, .. }
            | Self::Hide { path, .. } => path,
            Self::Proc => Path::new("/proc"),
        }
    }
}

impl SandboxPlan {
    /// The steps that build the sandbox's root, parents before what lies in them. `inspect` says
    /// what the host holds at a path.
    /// `system` lists the entries under `PRIVATE_ENTRIES_UNDER`; the private ones are covered.
    pub fn mount_ops(
        &self,
        inspect: &dyn Fn(&Path) -> PathKind,
        system: &[SystemEntry],
    ) -> Vec<MountOp> {
        let mut ops = Vec::new();
        for system in SYSTEM_PATHS {
            let path = PathBuf::from(system);
            match inspect(&path) {
                PathKind::Dir => ops.push(read_only(&path)),
                PathKind::Symlink(target) => ops.push(MountOp::Symlink { target, path }),
                PathKind::File | PathKind::Missing => {}
            }
        }
        for hidden in HIDDEN_SYSTEM_PATHS {
            let path = PathBuf::from(hidden);
            match inspect(&path) {
                PathKind::Dir => ops.push(MountOp::Hide { path, dir: true }),
                PathKind::File => ops.push(MountOp::Hide { path, dir: false }),
                PathKind::Symlink(_) | PathKind::Missing => {}
            }
        }
        for entry in system {
            let covered = ops
                .iter()
                .any(|op| matches!(op, MountOp::Hide { path, .. } if entry.path.starts_with(path)));
            if is_private(entry.dir, entry.mode) && !covered {
                ops.push(MountOp::Hide {
                    path: entry.path.clone(),
                    dir: entry.dir,
                });
            }
        }
        ops.push(MountOp::Proc);
        ops.push(MountOp::Tmpfs {
            path: PathBuf::from("/dev"),
        });
        for device in DEVICES {
            let path = PathBuf::from(device);
            ops.push(MountOp::Bind {
                source: path.clone(),
                path,
                writable: true,
            });
        }
        for (name, target) in [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ] {
            ops.push(MountOp::Symlink {
                target: PathBuf::from(target),
                path: Path::new("/dev").join(name),
            });
        }
        for private in ["/dev/shm", "/tmp"] {
            ops.push(MountOp::Tmpfs {
                path: PathBuf::from(private),
            });
        }
        if !is_within_any(&self.home, &["/tmp", "/dev", "/proc"]) {
            ops.push(MountOp::Tmpfs {
                path: self.home.clone(),
            });
        }
        for folder in &self.environment {
            if !is_within_any(folder, SYSTEM_PATHS) {
                ops.push(read_only(folder));
            }
        }
        ops.push(read_only(&self.data));
        ops.push(MountOp::Bind {
            source: self.notebooks.clone(),
            path: self.notebooks.clone(),
            writable: true,
        });
        // Parents first; steps at the same depth keep their order.
        ops.sort_by_key(|op| op.path().components().count());
        ops
    }

    /// The folders Landlock lets the program read (and run programs from), and those it lets it
    /// write: the same paths as the mounts, as a second layer over them.
    pub fn landlock_paths(&self, exists: &dyn Fn(&Path) -> bool) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let mut read: Vec<PathBuf> = SYSTEM_PATHS
            .iter()
            .map(PathBuf::from)
            .chain(std::iter::once(PathBuf::from("/proc")))
            .chain(self.environment.iter().cloned())
            .chain(std::iter::once(self.data.clone()))
            .filter(|path| exists(path))
            .collect();
        read.dedup();
        let write = [
            self.notebooks.clone(),
            self.home.clone(),
            PathBuf::from("/tmp"),
            PathBuf::from("/dev"),
        ]
        .into_iter()
        .filter(|path| exists(path))
        .collect();
        (read, write)
    }
}

fn read_only(path: &Path) -> MountOp {
    MountOp::Bind {
        source: path.to_path_buf(),
        path: path.to_path_buf(),
        writable: false,
    }
}

fn is_within_any(path: &Path, roots: &[&str]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use pretty_assertions::assert_eq;

    fn plan() -> SandboxPlan {
        SandboxPlan {
            workspace: PathBuf::from("/home/ana/sales"),
            home: PathBuf::from("/home/ana"),
            notebooks: PathBuf::from("/home/ana/sales/notebooks"),
            data: PathBuf::from("/home/ana/sales/data"),
            environment: vec![
                PathBuf::from("/home/ana/.local/share/hailer/kernel-envs/c1"),
                PathBuf::from("/usr"),
            ],
            limits: Limits {
                processes: 256,
                memory_bytes: 1 << 30,
            },
        }
    }

    /// A merged-`/usr` host with a shadow file and an ssh folder.
    fn host(path: &Path) -> PathKind {
        match path.to_str().unwrap() {
            "/usr" | "/etc" | "/etc/ssh" | "/lib64" => PathKind::Dir,
            "/bin" => PathKind::Symlink(PathBuf::from("usr/bin")),
            "/lib" => PathKind::Symlink(PathBuf::from("usr/lib")),
            "/etc/shadow" => PathKind::File,
            _ => PathKind::Missing,
        }
    }

    fn paths(ops: &[MountOp]) -> Vec<String> {
        ops.iter()
            .map(|op| op.path().display().to_string())
            .collect()
    }

    #[test]
    fn the_root_holds_the_system_read_only_and_hides_its_secrets() {
        let ops = plan().mount_ops(&host, &[]);
        assert!(ops.contains(&read_only(Path::new("/usr"))));
        assert!(ops.contains(&read_only(Path::new("/etc"))));
        assert!(ops.contains(&MountOp::Symlink {
            target: PathBuf::from("usr/bin"),
            path: PathBuf::from("/bin"),
        }));
        assert!(ops.contains(&MountOp::Hide {
            path: PathBuf::from("/etc/shadow"),
            dir: false
        }));
        assert!(ops.contains(&MountOp::Hide {
            path: PathBuf::from("/etc/ssh"),
            dir: true
        }));
        // What the host lacks is not made up.
        assert!(!paths(&ops).contains(&"/lib32".to_owned()));
        assert!(!paths(&ops).contains(&"/etc/gshadow".to_owned()));
    }

    #[test]
    fn the_home_is_empty_and_only_data_environment_and_notebooks_are_shown_in_it() {
        let ops = plan().mount_ops(&host, &[]);
        let home = paths(&ops)
            .into_iter()
            .filter(|path| path.starts_with("/home/ana"))
            .collect::<Vec<_>>();
        assert_eq!(
            home,
            [
                "/home/ana",
                "/home/ana/sales/data",
                "/home/ana/sales/notebooks",
                "/home/ana/.local/share/hailer/kernel-envs/c1",
            ]
        );
        assert!(ops.contains(&MountOp::Tmpfs {
            path: PathBuf::from("/home/ana")
        }));
        assert!(ops.contains(&read_only(Path::new("/home/ana/sales/data"))));
        assert!(ops.contains(&MountOp::Bind {
            source: PathBuf::from("/home/ana/sales/notebooks"),
            path: PathBuf::from("/home/ana/sales/notebooks"),
            writable: true,
        }));
        // Only the notebooks and the private folders are writable.
        let writable: Vec<_> = ops
            .iter()
            .filter_map(|op| match op {
                MountOp::Bind {
                    path,
                    writable: true,
                    ..
                } if !path.starts_with("/dev") => Some(path.display().to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(writable, ["/home/ana/sales/notebooks"]);
    }

    #[test]
    fn every_entry_of_etc_others_may_not_read_is_covered() {
        let entry = |path: &str, dir: bool, mode: u32| SystemEntry {
            path: PathBuf::from(path),
            dir,
            mode,
        };
        let system = [
            entry("/etc/passwd", false, 0o644),
            entry("/etc/postgresql/15/main/pg_hba.conf", false, 0o640),
            entry("/etc/docker/key.json", false, 0o600),
            entry("/etc/polkit-1/rules.d", true, 0o700),
            entry("/etc/polkit-1/rules.d/50-default.rules", false, 0o644),
            entry("/etc/ssh/ssh_host_ed25519_key", false, 0o600),
            entry("/etc/ld.so.cache", false, 0o644),
            entry("/etc/listable-not-enterable", true, 0o754),
        ];
        let hidden: Vec<String> = plan()
            .mount_ops(&host, &system)
            .iter()
            .filter_map(|op| match op {
                MountOp::Hide { path, .. } => Some(path.display().to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(
            hidden,
            [
                "/etc/shadow",
                "/etc/ssh",
                "/etc/listable-not-enterable",
                "/etc/docker/key.json",
                "/etc/polkit-1/rules.d",
                "/etc/postgresql/15/main/pg_hba.conf",
            ]
        );
        assert!(is_private(false, 0o640));
        assert!(!is_private(false, 0o604));
        assert!(is_private(true, 0o750));
        assert!(!is_private(true, 0o755));
    }

    #[test]
    fn parents_are_built_before_what_lies_in_them() {
        let ops = plan().mount_ops(&host, &[]);
        let position = |path: &str| paths(&ops).iter().position(|p| p == path).unwrap();
        assert!(position("/home/ana") < position("/home/ana/sales/data"));
        assert!(position("/dev") < position("/dev/null"));
        assert!(position("/dev") < position("/dev/shm"));
        assert!(position("/etc") < position("/etc/shadow"));
    }

    #[test]
    fn an_environment_inside_a_system_folder_is_not_bound_twice() {
        let ops = plan().mount_ops(&host, &[]);
        assert_eq!(paths(&ops).iter().filter(|path| *path == "/usr").count(), 1);
    }

    #[test]
    fn a_home_under_tmp_is_not_covered_twice() {
        let mut plan = plan();
        plan.home = PathBuf::from("/tmp/h");
        let ops = plan.mount_ops(&host, &[]);
        assert!(!paths(&ops).contains(&"/tmp/h".to_owned()));
    }

    #[test]
    fn landlock_reads_the_system_and_data_and_writes_notebooks_home_and_temporary_folders() {
        let (read, write) = plan().landlock_paths(&|path| {
            host(path) != PathKind::Missing
                || path.starts_with("/home")
                || path == Path::new("/proc")
                || path == Path::new("/tmp")
                || path == Path::new("/dev")
        });
        assert!(read.contains(&PathBuf::from("/home/ana/sales/data")));
        assert!(read.contains(&PathBuf::from("/usr")));
        assert!(!read.contains(&PathBuf::from("/lib32")));
        assert!(!read.iter().any(|path| path == Path::new("/home/ana")));
        assert_eq!(
            write,
            [
                PathBuf::from("/home/ana/sales/notebooks"),
                PathBuf::from("/home/ana"),
                PathBuf::from("/tmp"),
                PathBuf::from("/dev"),
            ]
        );
    }

    #[test]
    fn the_plan_travels_as_json() {
        let text = serde_json::to_string(&plan()).unwrap();
        assert_eq!(serde_json::from_str::<SandboxPlan>(&text).unwrap(), plan());
    }
}
