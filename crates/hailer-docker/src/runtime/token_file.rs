//! The kernel's token, handed over as one read-only file: `.hailer/kernel-token-<random>/token`
//! in a folder only this user can open. Emptied, then deleted (with its folder) when dropped,
//! which a start does once marimo has answered, on every path. Emptying comes first because the
//! container's bind mount keeps the file itself: deleting its name alone would leave the token
//! readable inside the kernel at `/run/secrets/hailer-token`.

use std::fs::DirBuilder;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use secrecy::{ExposeSecret as _, SecretString};

use crate::error::{Error, Result};

/// A token file on disk; gone when this is dropped.
#[derive(Debug)]
pub(super) struct TokenFile {
    dir: PathBuf,
    file: PathBuf,
}

impl TokenFile {
    /// Writes `token` for a container running as `reader` (uid, gid).
    pub(super) fn create(
        state_dir: &Path,
        token: &SecretString,
        reader: (u32, u32),
    ) -> Result<Self> {
        hailer_platform::ensure_state_folder(state_dir).map_err(Error::file(
            "cannot create the workspace's state folder",
            state_dir,
        ))?;
        let mut bytes = [0u8; 8];
        rand::fill(&mut bytes);
        let dir = state_dir.join(format!("kernel-token-{}", hex::encode(bytes)));
        DirBuilder::new()
            .create(&dir)
            .and_then(|()| hailer_platform::restrict_dir(&dir))
            .map_err(Error::file("cannot create the kernel's token folder", &dir))?;
        let made = Self {
            file: dir.join("token"),
            dir,
        };
        let mut file = hailer_platform::private_open_options()
            .write(true)
            .create_new(true)
            .open(&made.file)
            .map_err(Error::file(
                "cannot create the kernel's token file",
                &made.file,
            ))?;
        file.write_all(token.expose_secret().as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(Error::file(
                "cannot write the kernel's token file",
                &made.file,
            ))?;
        made.let_reader_in(reader)?;
        Ok(made)
    }

    /// The container reads the file as `reader`: ours already on a Linux host; as root we hand
    /// the file to that user; elsewhere (a virtual machine between us and the engine) the
    /// file becomes readable by all, inside a folder nobody else can open.
    #[cfg(unix)]
    fn let_reader_in(&self, (uid, gid): (u32, u32)) -> Result<()> {
        use std::os::unix::fs::PermissionsExt as _;
        let own_uid = nix::unistd::getuid().as_raw();
        if cfg!(target_os = "linux") && uid == own_uid {
            return Ok(());
        }
        if cfg!(target_os = "linux") && own_uid == 0 {
            return std::os::unix::fs::chown(&self.file, Some(uid), Some(gid)).map_err(
                Error::file(
                    "cannot hand the token file to the kernel's user",
                    &self.file,
                ),
            );
        }
        std::fs::set_permissions(&self.file, std::fs::Permissions::from_mode(0o644)).map_err(
            Error::file("cannot set the token file's permissions", &self.file),
        )
    }

    /// Docker Desktop reads a Windows file as the user who shares it: the owner-only file is
    /// readable in the container already.
    #[cfg(windows)]
    fn let_reader_in(&self, _reader: (u32, u32)) -> Result<()> {
        Ok(())
    }

    /// The file to mount.
    pub(super) fn path(&self) -> &Path {
        &self.file
    }

    /// The folder holding it.
    #[cfg(all(test, unix))]
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        if let Err(error) = std::fs::OpenOptions::new()
            .write(true)
            .open(&self.file)
            .and_then(|file| file.set_len(0))
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(file = %self.file.display(), %error, "could not empty the kernel's token file");
        }
        if let Err(error) = std::fs::remove_dir_all(&self.dir)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(dir = %self.dir.display(), %error, "could not delete the kernel's token folder");
        }
    }
}

// The test reads Unix modes and owners.
#[cfg(all(test, unix))]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_token_file_is_private_and_gone_after_drop() {
        let workspace = tempfile::tempdir().unwrap();
        let state = workspace.path().join(".hailer");
        let token = SecretString::from("s3cret-token");
        let file = TokenFile::create(&state, &token, (1000, 1000)).unwrap();
        use std::os::unix::fs::MetadataExt as _;
        let dir_meta = std::fs::metadata(file.dir()).unwrap();
        assert_eq!(dir_meta.mode() & 0o777, 0o700);
        let meta = std::fs::metadata(file.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(file.path()).unwrap(),
            "s3cret-token"
        );
        if nix::unistd::getuid().is_root() {
            assert_eq!((meta.uid(), meta.gid()), (1000, 1000));
            assert_eq!(meta.mode() & 0o777, 0o600);
        }
        let dir = file.dir().to_path_buf();
        assert!(dir.starts_with(&state));
        // What a bind mount of the file still sees once its name is gone.
        let mounted = std::fs::File::open(file.path()).unwrap();
        drop(file);
        assert_eq!(
            mounted.metadata().unwrap().len(),
            0,
            "the token outlives its file name"
        );
        assert!(!dir.exists());
        let left: Vec<_> = std::fs::read_dir(&state)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(left, [hailer_platform::STATE_IGNORE_FILE]);
    }
}
