//! A workspace's `.hailer/` folder: the conversation store, the audit trail, locks, logs and
//! backups. Everything that creates it goes through [`ensure`], so it is the owner's alone
//! (0700 on Unix, an owner-only access list on Windows) and carries a `.gitignore` that keeps
//! its contents out of version control, whether `hailer init` made it or not.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::private_fs;

/// The folder's name in the workspace.
pub const NAME: &str = ".hailer";

/// The name of the ignore file inside it.
pub const IGNORE_FILE: &str = ".gitignore";

/// What the ignore file says: everything here is Hailer's own state.
pub const IGNORE_TEXT: &str = "*\n";

/// The state folder of the workspace at `workspace` (not created).
pub fn of(workspace: &Path) -> PathBuf {
    workspace.join(NAME)
}

/// Creates the state folder of `workspace` as [`ensure`] does; returns its path.
pub fn ensure_in(workspace: &Path) -> io::Result<PathBuf> {
    let dir = of(workspace);
    ensure(&dir)?;
    Ok(dir)
}

/// Makes `dir` a state folder: created for the owner alone when missing, made private again
/// when others may open it (a warning when that is not allowed), and given its ignore file
/// when it has none. An ignore file the user wrote is kept as it is.
pub fn ensure(dir: &Path) -> io::Result<()> {
    match dir.symlink_metadata() {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            private_fs::ensure_private_dir(dir)?;
        }
        Err(error) => return Err(error),
        Ok(_) => make_private(dir),
    }
    write_ignore_file(dir)
}

/// An existing folder: 0700 again when the group or others may open it.
fn make_private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let open_to_others = std::fs::metadata(dir)
            .map(|meta| meta.is_dir() && meta.permissions().mode() & 0o077 != 0)
            .unwrap_or(false);
        if open_to_others && let Err(error) = private_fs::restrict_dir(dir) {
            tracing::warn!(dir = %dir.display(), %error, "could not make the state folder private");
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Writes the ignore file unless something of that name is there.
fn write_ignore_file(dir: &Path) -> io::Result<()> {
    let path = dir.join(IGNORE_FILE);
    if path.symlink_metadata().is_ok() {
        return Ok(());
    }
    match private_fs::private_open_options()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => file.write_all(IGNORE_TEXT.as_bytes()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error),
    }
}

#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn a_new_folder_is_private_and_ignored() {
        let workspace = tempfile::tempdir().unwrap();
        let dir = ensure_in(workspace.path()).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(
            std::fs::read_to_string(dir.join(IGNORE_FILE)).unwrap(),
            IGNORE_TEXT
        );
    }

    #[test]
    fn an_open_folder_is_made_private_and_a_written_ignore_file_kept() {
        let workspace = tempfile::tempdir().unwrap();
        let dir = of(workspace.path());
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.join(IGNORE_FILE), "threads.sqlite\n").unwrap();
        ensure(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(
            std::fs::read_to_string(dir.join(IGNORE_FILE)).unwrap(),
            "threads.sqlite\n"
        );
    }
}
