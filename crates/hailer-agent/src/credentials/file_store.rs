//! Keys in a JSON file only the user can open, for machines whose OS credential store does not
//! answer: mode 0600 in a 0700 folder on Unix, an owner-only access list on Windows, both from
//! `hailer_platform::ensure_private_dir` and `private_temp_file`. Written whole, atomically, on every change.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use secrecy::{ExposeSecret, SecretString};

use super::{KeySource, SecretBackend};
use crate::error::{Error, Result};

/// The file's name inside its folder.
pub const CREDENTIALS_FILE: &str = "credentials.json";

/// The credential file.
#[derive(Clone, Debug)]
pub(crate) struct FileSecrets {
    folder: PathBuf,
    path: PathBuf,
}

impl FileSecrets {
    /// The file [`CREDENTIALS_FILE`] in `folder`. Nothing is read or created until a key is
    /// looked up or stored; the folder is made, and kept, the user's alone (mode 0700 on Unix,
    /// an owner-only access list on Windows) on every write.
    pub(crate) fn new(folder: impl Into<PathBuf>) -> Self {
        let folder = folder.into();
        let path = folder.join(CREDENTIALS_FILE);
        Self { folder, path }
    }

    /// The credential file's path, whether or not it exists yet.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, action: &'static str, source: io::Error) -> Error {
        Error::Io {
            action,
            path: self.path.clone(),
            source,
        }
    }

    fn read(&self) -> Result<BTreeMap<String, String>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(error) => return Err(self.io("read", error)),
        };
        // The parser's message could quote the file; say only where it broke.
        serde_json::from_str(&text).map_err(|error| Error::CredentialFile {
            path: self.path.clone(),
            detail: format!(
                "it is not a JSON object of keys (line {}, column {})",
                error.line(),
                error.column()
            ),
        })
    }

    fn write(&self, keys: &BTreeMap<String, String>) -> Result<()> {
        hailer_platform::ensure_private_dir(&self.folder)
            .map_err(|error| self.io("create the folder of", error))?;
        let text = serde_json::to_string_pretty(keys)?;
        // A temporary file only the owner can open, written whole, then renamed over the file.
        let mut temporary = hailer_platform::private_temp_file(&self.folder, ".credentials-")
            .map_err(|error| self.io("write", error))?;
        temporary
            .write_all(text.as_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(|error| self.io("write", error))?;
        temporary
            .persist(&self.path)
            .map_err(|error| self.io("write", error.error))?;
        Ok(())
    }
}

impl SecretBackend for FileSecrets {
    fn source(&self) -> KeySource {
        KeySource::File
    }

    fn get(&self, user: &str) -> Result<Option<SecretString>> {
        Ok(self.read()?.remove(user).map(SecretString::from))
    }

    fn set(&self, user: &str, secret: &SecretString) -> Result<()> {
        let mut keys = self.read()?;
        keys.insert(user.to_owned(), secret.expose_secret().to_owned());
        self.write(&keys)
    }

    fn delete(&self, user: &str) -> Result<bool> {
        let mut keys = self.read()?;
        if keys.remove(user).is_none() {
            return Ok(false);
        }
        self.write(&keys)?;
        Ok(true)
    }
}
