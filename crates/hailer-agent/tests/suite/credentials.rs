//! API keys: the environment wins, then the store the setting names; `auto` falls back to the
//! private file when the OS credential store does not answer; a missing key says how to fix it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hailer_agent::{CREDENTIALS_FILE, CredentialsStore, KeySource, SecretBackend};
use hailer_agent::{Credentials, Error, MissingKey};
use secrecy::{ExposeSecret, SecretString};

pub(super) const STORED: &str = "sk-stored-key-9a8b7c6d5e4f3a2b1c";
pub(super) const FROM_ENV: &str = "sk-env-key-1f2e3d4c5b6a79880";

/// An in-memory stand-in for the OS credential store, which can be made to not answer.
#[derive(Clone, Default)]
pub(super) struct FakeKeyring {
    keys: Arc<Mutex<BTreeMap<String, String>>>,
    down: bool,
}

impl FakeKeyring {
    pub(super) fn down() -> Self {
        Self {
            down: true,
            ..Self::default()
        }
    }

    fn check(&self) -> hailer_agent::Result<()> {
        if self.down {
            Err(Error::KeyringUnavailable {
                reason: "no credential service answers on this machine".into(),
            })
        } else {
            Ok(())
        }
    }
}

impl SecretBackend for FakeKeyring {
    fn source(&self) -> KeySource {
        KeySource::Keyring
    }

    fn get(&self, user: &str) -> hailer_agent::Result<Option<SecretString>> {
        self.check()?;
        Ok(self
            .keys
            .lock()
            .unwrap()
            .get(user)
            .map(|key| SecretString::from(key.as_str())))
    }

    fn set(&self, user: &str, secret: &SecretString) -> hailer_agent::Result<()> {
        self.check()?;
        self.keys
            .lock()
            .unwrap()
            .insert(user.to_owned(), secret.expose_secret().to_owned());
        Ok(())
    }

    fn delete(&self, user: &str) -> hailer_agent::Result<bool> {
        self.check()?;
        Ok(self.keys.lock().unwrap().remove(user).is_some())
    }
}

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

fn secret(text: &str) -> SecretString {
    SecretString::from(text)
}

#[test]
fn the_environment_wins_over_the_store_and_empty_counts_as_unset() {
    let dir = tempfile::tempdir().unwrap();
    let credentials = Credentials::with_keyring(
        CredentialsStore::Keyring,
        dir.path(),
        FakeKeyring::default(),
    );
    credentials
        .store_key("openai", "OPENAI_API_KEY", &secret(STORED))
        .unwrap();

    let (key, source) = credentials
        .resolve_key(
            "openai",
            "OPENAI_API_KEY",
            &env(&[("OPENAI_API_KEY", FROM_ENV)]),
        )
        .unwrap();
    assert_eq!(
        (key.expose_secret(), source),
        (FROM_ENV, KeySource::Environment)
    );

    let (key, source) = credentials
        .resolve_key(
            "openai",
            "OPENAI_API_KEY",
            &env(&[("OPENAI_API_KEY", "  ")]),
        )
        .unwrap();
    assert_eq!((key.expose_secret(), source), (STORED, KeySource::Keyring));
}

#[test]
fn a_missing_key_names_the_exact_fix() {
    let dir = tempfile::tempdir().unwrap();
    let credentials =
        Credentials::with_keyring(CredentialsStore::Auto, dir.path(), FakeKeyring::default());
    let missing: MissingKey = credentials
        .resolve_key("local", "LOCAL_LLM_KEY", &BTreeMap::new())
        .unwrap_err();
    assert_eq!(
        missing.message(),
        "LOCAL_LLM_KEY is not set (required by provider 'local'), and no key is stored for it"
    );
    assert_eq!(
        missing.hint(),
        "Run `hailer login local` to store the key, or set LOCAL_LLM_KEY in the environment you \
         run hailer from."
    );
    assert_eq!(
        missing.to_string(),
        format!("{}. {}", missing.message(), missing.hint())
    );
}

#[cfg(unix)]
#[test]
fn auto_falls_back_to_a_private_file_when_no_credential_service_answers() {
    use hailer_agent::key_user;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("hailer-state");
    let credentials =
        Credentials::with_keyring(CredentialsStore::Auto, &folder, FakeKeyring::down());
    let stored_in = credentials
        .store_key("openai", "OPENAI_API_KEY", &secret(STORED))
        .unwrap();
    assert_eq!(stored_in, KeySource::File);

    let file = folder.join(CREDENTIALS_FILE);
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600, "the key file is private");
    assert_eq!(mode(&folder), 0o700, "its folder is private");
    let on_disk: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        on_disk
            .get(&key_user("openai", "OPENAI_API_KEY"))
            .map(String::as_str),
        Some(STORED)
    );

    let (key, source) = credentials
        .resolve_key("openai", "OPENAI_API_KEY", &BTreeMap::new())
        .unwrap();
    assert_eq!((key.expose_secret(), source), (STORED, KeySource::File));

    assert!(credentials.delete_key("openai", "OPENAI_API_KEY").unwrap());
    assert!(!credentials.delete_key("openai", "OPENAI_API_KEY").unwrap());
    assert!(
        credentials
            .resolve_key("openai", "OPENAI_API_KEY", &BTreeMap::new())
            .is_err()
    );
}

#[test]
fn the_file_setting_never_touches_the_keyring() {
    let dir = tempfile::tempdir().unwrap();
    let keyring = FakeKeyring::default();
    let credentials =
        Credentials::with_keyring(CredentialsStore::File, dir.path(), keyring.clone());
    assert_eq!(
        credentials
            .store_key("p", "P_KEY", &secret(STORED))
            .unwrap(),
        KeySource::File
    );
    assert!(keyring.keys.lock().unwrap().is_empty());
}

#[test]
fn keyring_only_says_why_it_failed_and_how_to_fix_it() {
    let dir = tempfile::tempdir().unwrap();
    let credentials =
        Credentials::with_keyring(CredentialsStore::Keyring, dir.path(), FakeKeyring::down());
    let error = credentials
        .store_key("p", "P_KEY", &secret(STORED))
        .unwrap_err();
    assert!(
        error.to_string().contains("credentials_store = \"file\""),
        "{error}"
    );
    let missing = credentials
        .resolve_key("p", "P_KEY", &BTreeMap::new())
        .unwrap_err();
    let message = missing.to_string();
    assert!(message.contains("`hailer login p`"), "{message}");
    assert!(
        message.contains("no credential service answers"),
        "{message}"
    );
}

#[test]
fn an_empty_key_is_not_stored() {
    let dir = tempfile::tempdir().unwrap();
    let credentials =
        Credentials::with_keyring(CredentialsStore::Auto, dir.path(), FakeKeyring::default());
    let error = credentials
        .store_key("p", "P_KEY", &secret("   "))
        .unwrap_err();
    assert!(matches!(error, Error::EmptyKey), "{error}");
}

#[test]
fn a_damaged_key_file_is_reported_without_quoting_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(CREDENTIALS_FILE),
        format!("{{\"p:P_KEY\": \"{STORED}"),
    )
    .unwrap();
    let credentials =
        Credentials::with_keyring(CredentialsStore::File, dir.path(), FakeKeyring::default());
    let missing = credentials
        .resolve_key("p", "P_KEY", &BTreeMap::new())
        .unwrap_err();
    let message = missing.to_string();
    assert!(message.contains("cannot be read"), "{message}");
    assert!(!message.contains(STORED), "{message}");
    assert!(!format!("{missing:?}").contains(STORED));
}

#[tokio::test]
async fn the_os_credential_store_answers_or_fails_cleanly() {
    // On a machine without a secret service this must be a clean "missing", never a panic or a
    // hang. Only a name nobody uses is read; nothing is written.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_owned();
    let lookup = tokio::task::spawn_blocking(move || {
        Credentials::new(CredentialsStore::Auto, folder).resolve_key(
            "hailer-test-nobody",
            "HAILER_TEST_NO_SUCH_KEY",
            &BTreeMap::new(),
        )
    });
    let outcome = tokio::time::timeout(Duration::from_secs(30), lookup)
        .await
        .expect("the OS credential store answered within 30 s")
        .expect("the lookup did not panic");
    let missing = outcome.expect_err("nobody stored this key");
    assert!(
        missing
            .to_string()
            .contains("hailer login hailer-test-nobody")
    );
}
