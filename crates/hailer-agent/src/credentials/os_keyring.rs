//! The OS credential store (Keychain, Windows Credential Manager, Secret Service) through the
//! `keyring` crate, under the service name `hailer`.

use keyring::{Entry, Error as KeyringError};
use secrecy::{ExposeSecret, SecretString};

use super::{KeySource, SecretBackend};
use crate::error::{Error, Result};

/// The service name keys are kept under.
pub(super) const KEYRING_SERVICE: &str = "hailer";

/// The OS credential store.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct OsKeyring;

/// Our error for a keyring failure. Some keyring errors carry the stored bytes; those are never
/// formatted.
fn failure(error: &KeyringError) -> Error {
    match error {
        KeyringError::NoDefaultStore => Error::KeyringUnavailable {
            reason: "no credential service answers on this machine".to_owned(),
        },
        KeyringError::NoStorageAccess(platform) => Error::KeyringUnavailable {
            reason: format!("it could not be opened (it may be locked): {platform}"),
        },
        KeyringError::PlatformFailure(platform) => Error::KeyringUnavailable {
            reason: platform.to_string(),
        },
        KeyringError::BadEncoding(_) | KeyringError::BadDataFormat(..) => Error::Keyring {
            reason: "the stored key is not readable text; run `hailer login` again".to_owned(),
        },
        KeyringError::Ambiguous(entries) => Error::Keyring {
            reason: format!(
                "{} stored entries match; remove the extra ones",
                entries.len()
            ),
        },
        other => Error::Keyring {
            reason: other.to_string(),
        },
    }
}

fn entry(user: &str) -> Result<Entry> {
    Entry::new(KEYRING_SERVICE, user).map_err(|error| failure(&error))
}

impl SecretBackend for OsKeyring {
    fn source(&self) -> KeySource {
        KeySource::Keyring
    }

    fn get(&self, user: &str) -> Result<Option<SecretString>> {
        match entry(user)?.get_password() {
            Ok(password) => Ok(Some(SecretString::from(password))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(error) => Err(failure(&error)),
        }
    }

    fn set(&self, user: &str, secret: &SecretString) -> Result<()> {
        entry(user)?
            .set_password(secret.expose_secret())
            .map_err(|error| failure(&error))
    }

    fn delete(&self, user: &str) -> Result<bool> {
        match entry(user)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(KeyringError::NoEntry) => Ok(false),
            Err(error) => Err(failure(&error)),
        }
    }
}
