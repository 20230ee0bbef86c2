//! The notebooks folder on this machine: finding notebooks to copy in, and writing copies back
//! atomically, inside the folder only, never through a link, never deleting anything.

use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::allow_list::{self, MAX_FOLDERS, MAX_NOTEBOOK_BYTES, MAX_NOTEBOOKS, Refusal};

/// Folders never searched for notebooks.
const SKIPPED_FOLDERS: [&str; 3] = ["node_modules", "venv", "site-packages"];

/// The marker that a docker kernel wrote notebooks here.
pub const MARKER_FILE: &str = "sandbox-wrote-notebooks";
/// Where notebooks replaced by a copy back are kept.
pub(crate) const BACKUP_FOLDER: &str = "notebook-backups";

/// A notebook found on this machine.
#[derive(Debug, Clone)]
pub(super) struct HostNotebook {
    pub name: String,
    pub text: String,
}

/// The notebooks under `root` that may go into a kernel, and what was left out.
pub(super) fn find_notebooks(root: &Path) -> (Vec<HostNotebook>, Vec<(String, Refusal)>) {
    let mut found = Vec::new();
    let mut refused = Vec::new();
    let mut queue = VecDeque::from([(root.to_path_buf(), String::new(), 0usize)]);
    while let Some((dir, prefix, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let name = format!("{prefix}{file_name}");
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let skipped = file_name.starts_with('.')
                    || file_name.starts_with("__")
                    || SKIPPED_FOLDERS.contains(&file_name.as_str());
                if !skipped && depth < MAX_FOLDERS {
                    queue.push_back((entry.path(), format!("{name}/"), depth + 1));
                }
                continue;
            }
            if !file_name.ends_with(".py") {
                continue;
            }
            if kind.is_symlink() {
                refused.push((name, Refusal::Link));
                continue;
            }
            if let Err(why) = allow_list::check_name(&name) {
                refused.push((name, why));
                continue;
            }
            match read_notebook(&entry.path()) {
                Ok(text) if found.len() < MAX_NOTEBOOKS => found.push(HostNotebook { name, text }),
                Ok(_) => refused.push((name, Refusal::OverLimit)),
                Err(why) => refused.push((name, why)),
            }
        }
    }
    (found, refused)
}

/// A notebook's text, if it is one.
fn read_notebook(path: &Path) -> Result<String, Refusal> {
    let too_large = std::fs::symlink_metadata(path)
        .map(|meta| meta.len() > MAX_NOTEBOOK_BYTES as u64)
        .unwrap_or(true);
    if too_large {
        return Err(Refusal::TooLarge);
    }
    let bytes = std::fs::read(path).map_err(|_| Refusal::NotText)?;
    allow_list::check_contents(&bytes).map(str::to_owned)
}

/// The text of the file at `name` under `root` when it is a regular file (not a link).
pub(super) fn read_existing(root: &Path, name: &str) -> Option<String> {
    let path = root.join(name);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// Writes `text` to `name` under `root`: folders created as needed but never entered through a
/// link, the file replaced atomically (its mode kept), nothing outside `root` touched.
pub(super) fn write_notebook(root: &Path, name: &str, text: &str) -> std::io::Result<()> {
    let root = std::fs::canonicalize(root)?;
    let parts: Vec<&str> = name.split('/').collect();
    let Some((file_name, folders)) = parts.split_last() else {
        return Err(refuse("an empty name"));
    };
    let mut dir = root.clone();
    for folder in folders {
        let next = dir.join(folder);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(refuse("a part of its path is a link or not a folder")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::fs::create_dir(&next)?,
            Err(e) => return Err(e),
        }
        dir = next;
    }
    if !std::fs::canonicalize(&dir)?.starts_with(&root) {
        return Err(refuse("its folder is outside the notebooks folder"));
    }
    let target = dir.join(file_name);
    let permissions = match std::fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(_) => return Err(refuse("the file there is a link or not a regular file")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => new_file_permissions(),
        Err(e) => return Err(e),
    };
    let mut random = [0u8; 6];
    rand::fill(&mut random);
    let temporary = dir.join(format!(".hailer-sync-{}.tmp", hex::encode(random)));
    let written = (|| {
        let mut file = hailer_platform::private_open_options()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        drop(file);
        if let Some(permissions) = permissions {
            std::fs::set_permissions(&temporary, permissions)?;
        }
        std::fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A new notebook's permissions: 0644 on Unix (the temporary file was 0600); on Windows the
/// new file already has the folder's access list and is writable.
fn new_file_permissions() -> Option<std::fs::Permissions> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        Some(std::fs::Permissions::from_mode(0o644))
    }
    #[cfg(windows)]
    {
        None
    }
}

fn refuse(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, why.to_owned())
}

/// Saves `text` (this machine's version of `name`) as
/// `<state>/notebook-backups/<name without .py>.<YYYYmmdd-HHMMSS>[-n].py`, never overwriting.
pub(super) fn back_up(state_dir: &Path, name: &str, text: &str) -> std::io::Result<PathBuf> {
    let stem = name.strip_suffix(".py").unwrap_or(name);
    let stamp = utc_stamp(SystemTime::now());
    let folder = state_dir.join(BACKUP_FOLDER);
    for attempt in 0..100 {
        let suffix = if attempt == 0 {
            String::new()
        } else {
            format!("-{attempt}")
        };
        let path = folder.join(format!("{stem}.{stamp}{suffix}.py"));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match hailer_platform::private_open_options()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(text.as_bytes())?;
                file.sync_all()?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "too many backups of this notebook in one second",
    ))
}

/// Marks that a docker kernel wrote notebooks into this workspace.
pub(super) fn set_marker(state_dir: &Path) -> std::io::Result<()> {
    let path = state_dir.join(MARKER_FILE);
    if path.exists() {
        return Ok(());
    }
    hailer_platform::ensure_state_folder(state_dir)?;
    std::fs::write(
        path,
        "Notebooks written by a docker kernel were copied into the notebooks folder.\n",
    )
}

/// `YYYYmmdd-HHMMSS` in UTC (a time before 1970 reads as 1970's start).
fn utc_stamp(time: SystemTime) -> String {
    let time = jiff::Timestamp::try_from(time)
        .ok()
        .filter(|time| *time >= jiff::Timestamp::UNIX_EPOCH)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let at = jiff::tz::TimeZone::UTC.to_datetime(time);
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::time::Duration;

    use super::*;

    #[cfg(unix)]
    const NOTEBOOK: &str = "import marimo\napp = marimo.App()\n";

    #[test]
    fn dates_are_utc_calendar_dates() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_709_210_096);
        assert_eq!(utc_stamp(at), "20240229-123456");
        assert_eq!(utc_stamp(SystemTime::UNIX_EPOCH), "19700101-000000");
        let cases = [
            (951_782_400, "20000229-000000"),
            (951_868_799, "20000229-235959"),
            (4_102_444_799, "20991231-235959"),
            (1_483_228_799, "20161231-235959"),
            (1_796_207_405, "20261202-103005"),
        ];
        for (seconds, stamp) in cases {
            let at = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
            assert_eq!(utc_stamp(at), stamp, "{seconds}");
        }
        let before = SystemTime::UNIX_EPOCH - Duration::from_secs(86_400);
        assert_eq!(utc_stamp(before), "19700101-000000");
    }

    // These two make symlinks and set Unix modes.
    #[cfg(unix)]
    #[test]
    fn finding_skips_hidden_linked_and_foreign_files() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        std::fs::create_dir_all(r.join("q3")).unwrap();
        std::fs::create_dir_all(r.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(r.join("node_modules")).unwrap();
        std::fs::write(r.join("analysis.py"), NOTEBOOK).unwrap();
        std::fs::write(r.join("q3/review.py"), NOTEBOOK).unwrap();
        std::fs::write(r.join(".git/hooks/x.py"), NOTEBOOK).unwrap();
        std::fs::write(r.join("node_modules/x.py"), NOTEBOOK).unwrap();
        std::fs::write(r.join("script.py"), "print(1)\n").unwrap();
        std::fs::write(r.join("conftest.py"), NOTEBOOK).unwrap();
        std::os::unix::fs::symlink(r.join("analysis.py"), r.join("linked.py")).unwrap();
        let (found, refused) = find_notebooks(r);
        let names: Vec<_> = found.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["analysis.py", "q3/review.py"]);
        assert!(refused.contains(&("linked.py".to_owned(), Refusal::Link)));
        assert!(refused.contains(&("script.py".to_owned(), Refusal::NotMarimo)));
        assert!(refused.contains(&("conftest.py".to_owned(), Refusal::ToolFile)));
    }

    #[cfg(unix)]
    #[test]
    fn writes_are_atomic_keep_the_mode_and_never_follow_links() {
        use std::os::unix::fs::PermissionsExt as _;
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        std::fs::write(r.join("a.py"), "old").unwrap();
        std::fs::set_permissions(r.join("a.py"), std::fs::Permissions::from_mode(0o640)).unwrap();
        write_notebook(r, "a.py", "new").unwrap();
        assert_eq!(std::fs::read_to_string(r.join("a.py")).unwrap(), "new");
        let mode = std::fs::metadata(r.join("a.py"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
        write_notebook(r, "deep/er/b.py", "b").unwrap();
        assert_eq!(
            std::fs::read_to_string(r.join("deep/er/b.py")).unwrap(),
            "b"
        );

        std::os::unix::fs::symlink(outside.path(), r.join("out")).unwrap();
        assert!(write_notebook(r, "out/c.py", "c").is_err());
        assert!(!outside.path().join("c.py").exists());
        std::fs::write(outside.path().join("target.py"), "keep").unwrap();
        std::os::unix::fs::symlink(outside.path().join("target.py"), r.join("l.py")).unwrap();
        assert!(write_notebook(r, "l.py", "x").is_err());
        assert_eq!(
            std::fs::read_to_string(outside.path().join("target.py")).unwrap(),
            "keep"
        );
        let leftovers: Vec<_> = std::fs::read_dir(r)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(".hailer-sync"))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn backups_never_overwrite() {
        let state = tempfile::tempdir().unwrap();
        let first = back_up(state.path(), "q3/review.py", "one").unwrap();
        let second = back_up(state.path(), "q3/review.py", "two").unwrap();
        assert_ne!(first, second);
        assert!(first.starts_with(state.path().join("notebook-backups/q3")));
        assert_eq!(std::fs::read_to_string(first).unwrap(), "one");
        assert_eq!(std::fs::read_to_string(second).unwrap(), "two");
    }
}
