//! The trail's files are opened without following symbolic links and must be regular files, so
//! a trail replaced by a link (to `/dev/null`, or to a file elsewhere) is refused, never written
//! through or read as empty.

use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::{Error, Result};

/// Opens `path` with `options`, refusing a symbolic link and anything but a regular file.
pub(crate) fn open(path: &Path, options: &mut OpenOptions) -> Result<File> {
    let file = no_follow(private(options))
        .open(path)
        .map_err(|error| refused(path, error))?;
    let metadata = file.metadata().map_err(Error::io("inspect", path))?;
    if !metadata.is_file() {
        return Err(Error::NotRegular {
            path: path.to_path_buf(),
        });
    }
    Ok(file)
}

/// Opens `path` for reading; `None` when it does not exist.
pub(crate) fn open_to_read(path: &Path) -> Result<Option<File>> {
    match open(path, OpenOptions::new().read(true)) {
        Ok(file) => Ok(Some(file)),
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Whether something (a file, a link, a folder) is at `path`, without following a link.
pub(crate) fn is_present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Whether `path` is a regular file, without following a link.
pub(crate) fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// A link met where a file was expected is reported as such, not as the system's loop error.
fn refused(path: &Path, error: std::io::Error) -> Error {
    if is_present(path) && !is_regular(path) {
        Error::NotRegular {
            path: path.to_path_buf(),
        }
    } else {
        Error::io("open", path)(error)
    }
}

fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::OpenOptionsExt as _;
        // The link itself is opened, and then refused as not a regular file.
        options.custom_flags(windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT);
    }
    options
}

/// Files only the user may read (0600) where modes exist; on Windows the folder's own access
/// list applies.
fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
}

/// Whether `path` still names the file `file` has open (not removed, renamed away or replaced
/// since it was opened). Where the platform cannot tell, it is taken to.
pub(crate) fn still_names(path: &Path, file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        match (std::fs::symlink_metadata(path), file.metadata()) {
            (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        is_regular(path)
    }
}
