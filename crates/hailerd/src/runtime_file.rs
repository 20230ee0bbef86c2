//! The runtime file tells clients where the daemon listens and which token it wants.
//!
//! It lives in a folder only its owner can open, and is itself the owner's alone (0700 and 0600
//! on Unix, an owner-only access list on Windows: `hailer_platform::ensure_private_dir`); it is written
//! atomically (a temporary file in the same directory, synced, then renamed into place) so a
//! client never reads half a file.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

pub(crate) use hailer_platform::{check_private, ensure_private_dir};
use hailer_protocol::RuntimeFile;

/// Writes `contents` to `path` atomically, readable by the owner only.
pub(crate) fn write(path: &Path, contents: &RuntimeFile) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("the runtime file has no parent folder"))?;
    ensure_private_dir(dir)?;
    let mut temp = hailer_platform::private_temp_file(dir, ".hailerd-")?;
    serde_json::to_writer(&mut temp, contents)?;
    temp.write_all(b"\n")?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Reads the runtime file; `None` when there is none.
pub(crate) fn read(path: &Path) -> io::Result<Option<RuntimeFile>> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(io::Error::other),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Removes the runtime file if it still describes the process `pid`.
pub(crate) fn remove_if_ours(path: &Path, pid: u32) -> io::Result<()> {
    match read(path) {
        Ok(Some(file)) if file.pid == pid => fs::remove_file(path),
        Ok(_) => Ok(()),
        // A file we cannot parse is not one we wrote.
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn sample(pid: u32) -> RuntimeFile {
        RuntimeFile {
            pid,
            port: 4242,
            token: "t".repeat(64),
            version: "0.1.0".to_owned(),
            started_at: 1,
        }
    }

    #[test]
    fn written_private_and_read_back() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        let path = dir.join("hailerd.json");
        write(&path, &sample(7)).unwrap();
        check_private(&dir).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        assert_eq!(read(&path).unwrap(), Some(sample(7)));
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary files left behind");
    }

    #[test]
    fn removed_only_by_its_owner() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("hailerd.json");
        write(&path, &sample(7)).unwrap();
        remove_if_ours(&path, 8).unwrap();
        assert!(path.exists());
        remove_if_ours(&path, 7).unwrap();
        assert!(!path.exists());
        assert_eq!(read(&path).unwrap(), None);
    }
}
