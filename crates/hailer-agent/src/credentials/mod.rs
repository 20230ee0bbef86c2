//! A provider's API key: from the client's environment first, else from where `hailer login`
//! stored it (the OS credential store, or a file only the user can read).
//!
//! Keys are [`SecretString`]s from the moment they are read: `Debug` shows no key, and no error
//! or log line here ever carries one.
//!
//! The OS credential store is reached through blocking calls (D-Bus on Linux): call these
//! functions from a blocking-friendly context (`tokio::task::spawn_blocking`).

mod file_store;
mod os_keyring;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

pub use hailer_config::CredentialsStore;
use secrecy::{ExposeSecret, SecretString};

pub use file_store::CREDENTIALS_FILE;
pub(crate) use file_store::FileSecrets;
pub(crate) use os_keyring::OsKeyring;

use crate::error::{Error, Result};

/// Where a key was found or put.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// The provider's `env_key` variable, from the client's environment.
    Environment,
    /// The OS credential store.
    Keyring,
    /// The credential file.
    File,
}

impl fmt::Display for KeySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Environment => "env",
            Self::Keyring => "keyring",
            Self::File => "file",
        })
    }
}

/// A place secrets can be kept under a user name.
pub trait SecretBackend: Send + Sync {
    /// Which kind of place this is, reported with every key found or stored here.
    fn source(&self) -> KeySource;
    /// The secret kept under `user` (see [`key_user`]); `Ok(None)` when there is none. Fails
    /// when the place cannot be read.
    fn get(&self, user: &str) -> Result<Option<SecretString>>;
    /// Keeps `secret` under `user`, replacing what was there.
    fn set(&self, user: &str, secret: &SecretString) -> Result<()>;
    /// Removes the secret kept under `user`; whether there was something to delete.
    fn delete(&self, user: &str) -> Result<bool>;
}

/// No key for the provider anywhere. The message says exactly how to provide one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}. {}", self.message(), self.hint())]
pub struct MissingKey {
    /// The provider id the key was wanted for, as in `[model_providers.<id>]`.
    pub provider: String,
    /// The environment variable the provider's key is read from.
    pub env_key: String,
    /// Why the store could not be read, when that was the reason, with a leading space.
    problem: String,
}

impl MissingKey {
    /// What is missing: `X is not set (required by provider 'p'), and no key is stored for it`.
    pub fn message(&self) -> String {
        let (env_key, provider) = (&self.env_key, &self.provider);
        let stored = if self.problem.is_empty() {
            ", and no key is stored for it".to_owned()
        } else {
            self.problem.clone()
        };
        format!("{env_key} is not set (required by provider '{provider}'){stored}")
    }

    /// How to provide the key.
    pub fn hint(&self) -> String {
        let (env_key, provider) = (&self.env_key, &self.provider);
        format!(
            "Run `hailer login {provider}` to store the key, or set {env_key} in the environment \
             you run hailer from."
        )
    }
}

/// Where keys are looked up and kept, following the `credentials_store` setting.
pub struct Credentials {
    setting: CredentialsStore,
    keyring: Box<dyn SecretBackend>,
    file: FileSecrets,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("setting", &self.setting)
            .field("file", &self.file.path())
            .finish_non_exhaustive()
    }
}

/// The user name a key is kept under: `<provider>:<env_key>`.
pub fn key_user(provider: &str, env_key: &str) -> String {
    format!("{provider}:{env_key}")
}

impl Credentials {
    /// The OS credential store and a file in `folder`, used as `setting` says.
    pub fn new(setting: CredentialsStore, folder: impl Into<PathBuf>) -> Self {
        Self::with_keyring(setting, folder, OsKeyring)
    }

    /// Like [`new`](Self::new), with another backend in place of the OS credential store.
    pub fn with_keyring(
        setting: CredentialsStore,
        folder: impl Into<PathBuf>,
        keyring: impl SecretBackend + 'static,
    ) -> Self {
        Self {
            setting,
            keyring: Box::new(keyring),
            file: FileSecrets::new(folder),
        }
    }

    /// The key stored for the provider, and where it was found.
    pub fn stored_key(
        &self,
        provider: &str,
        env_key: &str,
    ) -> Result<Option<(SecretString, KeySource)>> {
        let user = key_user(provider, env_key);
        let found = |backend: &dyn SecretBackend| -> Result<Option<(SecretString, KeySource)>> {
            Ok(backend
                .get(&user)?
                .filter(|key| !key.expose_secret().trim().is_empty())
                .map(|key| (key, backend.source())))
        };
        match self.setting {
            CredentialsStore::Keyring => found(self.keyring.as_ref()),
            CredentialsStore::File => found(&self.file),
            CredentialsStore::Auto => match found(self.keyring.as_ref()) {
                Ok(Some(key)) => Ok(Some(key)),
                Ok(None) => found(&self.file),
                Err(error) => {
                    tracing::debug!(%error, "the OS credential store did not answer; using the file");
                    found(&self.file)
                }
            },
        }
    }

    /// The provider's key: a non-empty `env_key` variable of the client's environment wins,
    /// else the stored key.
    pub fn resolve_key(
        &self,
        provider: &str,
        env_key: &str,
        env: &BTreeMap<String, String>,
    ) -> std::result::Result<(SecretString, KeySource), MissingKey> {
        if let Some(value) = env.get(env_key).filter(|value| !value.trim().is_empty()) {
            return Ok((SecretString::from(value.trim()), KeySource::Environment));
        }
        let problem = match self.stored_key(provider, env_key) {
            Ok(Some(found)) => return Ok(found),
            Ok(None) => String::new(),
            Err(error) => format!("; the stored keys could not be read: {error}"),
        };
        Err(MissingKey {
            provider: provider.to_owned(),
            env_key: env_key.to_owned(),
            problem,
        })
    }

    /// Keeps the key; returns where. With `auto`, a credential store that does not answer
    /// sends the key to the file.
    pub fn store_key(
        &self,
        provider: &str,
        env_key: &str,
        key: &SecretString,
    ) -> Result<KeySource> {
        let trimmed = SecretString::from(key.expose_secret().trim());
        if trimmed.expose_secret().is_empty() {
            return Err(Error::EmptyKey);
        }
        let user = key_user(provider, env_key);
        match self.setting {
            CredentialsStore::Keyring => self
                .keyring
                .set(&user, &trimmed)
                .map(|()| KeySource::Keyring),
            CredentialsStore::File => self.file.set(&user, &trimmed).map(|()| KeySource::File),
            CredentialsStore::Auto => match self.keyring.set(&user, &trimmed) {
                Ok(()) => {
                    // A key left in the file from an earlier fallback would shadow nothing, but
                    // would linger: drop it.
                    let _ = self.file.delete(&user);
                    Ok(KeySource::Keyring)
                }
                Err(error) => {
                    tracing::info!(%error, "the OS credential store did not answer; storing the key in the file");
                    self.file.set(&user, &trimmed).map(|()| KeySource::File)
                }
            },
        }
    }

    /// Removes the stored key from every place the setting uses; whether one was there.
    pub fn delete_key(&self, provider: &str, env_key: &str) -> Result<bool> {
        let user = key_user(provider, env_key);
        match self.setting {
            CredentialsStore::Keyring => self.keyring.delete(&user),
            CredentialsStore::File => self.file.delete(&user),
            CredentialsStore::Auto => {
                let from_keyring = self.keyring.delete(&user).unwrap_or_else(|error| {
                    tracing::debug!(%error, "the OS credential store did not answer");
                    false
                });
                let from_file = self.file.delete(&user)?;
                Ok(from_keyring || from_file)
            }
        }
    }
}
