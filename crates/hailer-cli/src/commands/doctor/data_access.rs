//! Can the docker kernel read the data folder? It runs as a user of its own in its container
//! (`hailer_kernel_bundle::docker_kernel_user`: the image's user in place of root, and no
//! supplementary groups), so a file only its owner may read is out of its reach even when
//! the person running Hailer can read it.

use std::path::{Path, PathBuf};

/// At most this many entries are looked at: a folder larger than that is judged by its start.
#[cfg(unix)]
const MAX_ENTRIES: usize = 50_000;
/// At most this many unreadable entries are listed.
#[cfg(unix)]
pub(super) const MAX_LISTED: usize = 10;

/// An entry the kernel's user cannot use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unreadable {
    /// Its path, as found under the data folder.
    pub path: PathBuf,
    /// A folder (which needs reading and traversing) rather than a file.
    pub is_folder: bool,
}

impl Unreadable {
    /// The command that lets everyone read it (and traverse it, for a folder).
    pub(super) fn fix(&self, shown: &Path) -> String {
        let mode = if self.is_folder { "a+rx" } else { "a+r" };
        format!("chmod {mode} {}", shell_word(&shown.display().to_string()))
    }
}

/// Whether the permission bits `mode` of an entry owned by `owner` give `user` every bit of
/// `want` (4 read, 1 traverse), with the rule of the system: the owner's class when the user
/// owns it, else the group's when its group is the user's, else the others'.
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) fn allows(mode: u32, owner: (u32, u32), user: (u32, u32), want: u32) -> bool {
    let bits = if owner.0 == user.0 {
        (mode >> 6) & 0o7
    } else if owner.1 == user.1 {
        (mode >> 3) & 0o7
    } else {
        mode & 0o7
    };
    bits & want == want
}

/// The entries of `data` (itself included) that `user` cannot read, or, for folders, read and
/// traverse; with the total count (only the first [`MAX_LISTED`] are kept). Links are not
/// followed: the kernel sees the folder through a mount, where they rarely lead anywhere.
#[cfg(unix)]
pub(super) fn unreadable(data: &Path, user: (u32, u32)) -> (Vec<Unreadable>, usize) {
    use std::os::unix::fs::MetadataExt as _;
    let mut found = Vec::new();
    let mut count = 0;
    let mut seen = 0;
    let mut pending = vec![data.to_path_buf()];
    while let Some(path) = pending.pop() {
        seen += 1;
        if seen > MAX_ENTRIES {
            break;
        }
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        let is_folder = meta.is_dir();
        if !is_folder && !meta.is_file() {
            continue;
        }
        let want = if is_folder { 0o5 } else { 0o4 };
        if !allows(meta.mode(), (meta.uid(), meta.gid()), user, want) {
            count += 1;
            if found.len() < MAX_LISTED {
                found.push(Unreadable {
                    path: path.clone(),
                    is_folder,
                });
            }
            continue;
        }
        if is_folder && let Ok(entries) = std::fs::read_dir(&path) {
            let mut children: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
            children.sort();
            pending.extend(children.into_iter().rev());
        }
    }
    (found, count)
}

/// Elsewhere the engine's file sharing reads the files as the person running Hailer.
#[cfg(not(unix))]
pub(super) fn unreadable(_data: &Path, _user: (u32, u32)) -> (Vec<Unreadable>, usize) {
    (Vec::new(), 0)
}

/// The user the docker kernel runs as on this machine.
pub(super) fn kernel_user() -> (u32, u32) {
    hailer_kernel_bundle::docker_kernel_user(hailer_platform::host_ids_in_containers())
}

/// `text` as one word for a POSIX shell: as it is when plain, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_owner_class_decides_for_the_owner_then_the_group_then_others() {
        let kernel = (1000, 1000);
        assert!(!allows(0o600, (0, 0), kernel, 0o4));
        assert!(allows(0o644, (0, 0), kernel, 0o4));
        assert!(allows(0o640, (0, 1000), kernel, 0o4));
        assert!(allows(0o600, (1000, 0), kernel, 0o4));
        assert!(
            !allows(0o044, (1000, 0), kernel, 0o4),
            "the owner class wins"
        );
        assert!(
            !allows(0o744, (0, 0), kernel, 0o5),
            "a folder needs traversing too"
        );
        assert!(allows(0o755, (0, 0), kernel, 0o5));
    }

    #[test]
    fn fixes_are_commands_with_quoted_paths() {
        let file = Unreadable {
            path: PathBuf::from("/w/data/q3 sales.csv"),
            is_folder: false,
        };
        assert_eq!(
            file.fix(Path::new("data/q3 sales.csv")),
            "chmod a+r 'data/q3 sales.csv'"
        );
        let folder = Unreadable {
            path: PathBuf::from("/w/data/raw"),
            is_folder: true,
        };
        assert_eq!(folder.fix(Path::new("data/raw")), "chmod a+rx data/raw");
    }

    #[cfg(unix)]
    #[test]
    fn unreadable_entries_are_listed_and_a_closed_folder_not_entered() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(data.join("closed")).unwrap();
        std::fs::write(data.join("open.csv"), "a\n").unwrap();
        std::fs::write(data.join("closed/inner.csv"), "a\n").unwrap();
        std::fs::write(data.join("private.csv"), "a\n").unwrap();
        let set = |path: &Path, mode| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        set(&data, 0o755);
        set(&data.join("open.csv"), 0o644);
        set(&data.join("private.csv"), 0o600);
        set(&data.join("closed"), 0o700);
        // Judged for a user that owns none of it.
        let stranger = (u32::MAX - 1, u32::MAX - 1);
        let (found, count) = unreadable(&data, stranger);
        assert_eq!(count, 2);
        assert_eq!(
            found,
            vec![
                Unreadable {
                    path: data.join("closed"),
                    is_folder: true
                },
                Unreadable {
                    path: data.join("private.csv"),
                    is_folder: false
                },
            ]
        );
    }
}
