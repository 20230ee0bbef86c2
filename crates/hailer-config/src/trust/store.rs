//! Where trust is recorded: one small file per workspace and configuration file, in `trusted/`
//! of the user's configuration folder, named by a digest of both paths and holding them and the
//! digest of each gated setting agreed to. A file reached through a link from another workspace
//! is judged by that workspace's own record, never by the record of the workspace it lives in.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Records bigger than this are not records.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// Why trust could not be read or recorded.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A record or the `trusted/` folder could not be created, read, written or removed.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done: `create`, `read`, `write` or `remove`.
        action: &'static str,
        /// The record file, or the `trusted/` folder for `create`.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A record file exists but is not valid TOML with a `workspace`, a `file` and `settings`
    /// (a record over 64 KiB is cut there, so it fails too).
    #[error("{} is not a trust record Hailer wrote; delete it and run `hailer trust` again", path.display())]
    BadRecord {
        /// The record file that could not be read as a record.
        path: PathBuf,
    },
}

/// The trust records in the user's configuration folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Record {
    workspace: PathBuf,
    file: PathBuf,
    /// Setting name to the digest of the setting as agreed to.
    settings: BTreeMap<String, String>,
}

impl TrustStore {
    /// The records kept in `config_dir` (the user's Hailer configuration folder).
    pub fn in_config_dir(config_dir: &Path) -> Self {
        Self {
            dir: config_dir.join("trusted"),
        }
    }

    /// The record's path for a configuration file loaded for a workspace (both absolute, links
    /// resolved).
    pub fn record_path(&self, workspace: &Path, file: &Path) -> PathBuf {
        let mut hasher = Sha256::new();
        hasher.update(b"workspace\0");
        hasher.update(workspace.as_os_str().as_encoded_bytes());
        hasher.update(b"\0file\0");
        hasher.update(file.as_os_str().as_encoded_bytes());
        let name = hex::encode(&hasher.finalize()[..12]);
        self.dir.join(format!("{name}.toml"))
    }

    /// The settings agreed to for `file` in `workspace` (name to digest); `None` when there is
    /// no record.
    pub fn recorded(
        &self,
        workspace: &Path,
        file: &Path,
    ) -> Result<Option<BTreeMap<String, String>>, TrustError> {
        let path = self.record_path(workspace, file);
        let text = match read_small(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(TrustError::Io {
                    action: "read",
                    path,
                    source,
                });
            }
        };
        let record: Record =
            toml::from_str(&text).map_err(|_| TrustError::BadRecord { path: path.clone() })?;
        // Another pair of paths that shares the record's name is not trusted by it.
        Ok((record.workspace == workspace && record.file == file).then_some(record.settings))
    }

    /// Records the settings agreed to (name to digest) for `file` in `workspace`, replacing an
    /// earlier record; only the user may read it.
    pub fn record(
        &self,
        workspace: &Path,
        file: &Path,
        settings: &BTreeMap<String, String>,
    ) -> Result<PathBuf, TrustError> {
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| TrustError::Io {
                action,
                path,
                source,
            }
        };
        create_private_dir(&self.dir).map_err(io("create", &self.dir))?;
        let path = self.record_path(workspace, file);
        let record = Record {
            workspace: workspace.to_path_buf(),
            file: file.to_path_buf(),
            settings: settings.clone(),
        };
        let text = toml::to_string(&record).map_err(|error| TrustError::Io {
            action: "write",
            path: path.clone(),
            source: std::io::Error::other(error.to_string()),
        })?;
        let mut temp = tempfile::NamedTempFile::new_in(&self.dir).map_err(io("write", &path))?;
        temp.write_all(
            format!("# Written by `hailer trust`: the settings of this file you agreed to apply.\n{text}")
                .as_bytes(),
        )
        .map_err(io("write", &path))?;
        temp.persist(&path)
            .map_err(|error| io("write", &path)(error.error))?;
        Ok(path)
    }

    /// Removes the record for `file` in `workspace`; false when there was none.
    pub fn revoke(&self, workspace: &Path, file: &Path) -> Result<bool, TrustError> {
        let path = self.record_path(workspace, file);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(TrustError::Io {
                action: "remove",
                path,
                source,
            }),
        }
    }
}

fn read_small(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_RECORD_BYTES)
        .read_to_string(&mut text)?;
    Ok(text)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}
