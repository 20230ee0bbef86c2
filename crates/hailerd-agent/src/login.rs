//! `hailer login` and `hailer logout` on the daemon's side: keep or forget a provider's key in the
//! store the workspace's configuration chooses.

use std::path::{Path, PathBuf};

use hailer_agent::Credentials;
use hailer_protocol::{CredentialTarget, CredentialsResponse, StartSessionParams};
use secrecy::SecretString;

use hailerd_session::{SessionError, load_inputs};

/// The longest key accepted; real API keys are far shorter.
const MAX_KEY_BYTES: usize = 4096;

/// Keeps `key` for the target's provider.
pub async fn login(
    target: &CredentialTarget,
    key: SecretString,
    config_dir: &Path,
) -> Result<CredentialsResponse, SessionError> {
    check_key(&key)?;
    let found = find_provider(target, config_dir)?;
    let (provider, env_key) = (found.provider.clone(), found.env_key.clone());
    let stored = blocking(move || {
        found
            .credentials
            .store_key(&found.provider, &found.env_key, &key)
    })
    .await?;
    Ok(CredentialsResponse {
        provider,
        env_key,
        stored_in: Some(stored.to_string()),
        removed: false,
    })
}

/// Forgets the stored key of the target's provider.
pub async fn logout(
    target: &CredentialTarget,
    config_dir: &Path,
) -> Result<CredentialsResponse, SessionError> {
    let found = find_provider(target, config_dir)?;
    let (provider, env_key) = (found.provider.clone(), found.env_key.clone());
    let removed = blocking(move || {
        found
            .credentials
            .delete_key(&found.provider, &found.env_key)
    })
    .await?;
    Ok(CredentialsResponse {
        provider,
        env_key,
        stored_in: None,
        removed,
    })
}

struct Found {
    provider: String,
    env_key: String,
    credentials: Credentials,
}

/// Runs a credential-store call off the async workers: the OS store may wait on D-Bus.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> hailer_agent::Result<T> + Send + 'static,
) -> Result<T, SessionError> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|error| SessionError::CredentialStore(format!("the store call failed: {error}")))?
        .map_err(|error| SessionError::CredentialStore(error.to_string()))
}

/// The provider the target names (or the configured model's), its key variable, and the store
/// the configuration chooses.
fn find_provider(target: &CredentialTarget, config_dir: &Path) -> Result<Found, SessionError> {
    let params = StartSessionParams {
        cwd: target.cwd.clone(),
        workspace: target.workspace.clone(),
        config: target.config.clone(),
        kernel: None,
        model: None,
        new_thread: false,
        exec_timeout_secs: None,
        run_sandbox_notebooks: false,
        client: String::new(),
        env: target.env.clone(),
    };
    let loaded = hailer_config::load(&load_inputs(&params, config_dir)?)?;
    let model = &loaded.config.model;
    let provider = match target.provider.as_deref().map(str::trim) {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => model.provider.clone(),
    };
    let Some(declared) = loaded.config.model_providers.get(&provider) else {
        if let Some((message, hint)) = loaded.trust.provider_refusal(&provider) {
            return Err(SessionError::Rejected {
                message,
                hint: Some(hint),
            });
        }
        let known: Vec<&str> = loaded
            .config
            .model_providers
            .keys()
            .map(String::as_str)
            .collect();
        return Err(SessionError::Invalid(format!(
            "no provider '{provider}' in this workspace's configuration; known: {}",
            known.join(", ")
        )));
    };
    Ok(Found {
        env_key: declared.env_key.clone(),
        credentials: Credentials::new(model.credentials_store, credentials_dir(config_dir)),
        provider,
    })
}

/// Where the key file lives when the configuration keeps keys in a file.
pub(crate) fn credentials_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("credentials")
}

fn check_key(key: &SecretString) -> Result<(), SessionError> {
    use secrecy::ExposeSecret as _;
    let text = key.expose_secret().trim();
    if text.is_empty() {
        return Err(SessionError::Invalid(
            "the key is empty; nothing was stored".to_owned(),
        ));
    }
    if text.len() > MAX_KEY_BYTES {
        return Err(SessionError::Invalid(format!(
            "the key is longer than {MAX_KEY_BYTES} bytes; paste only the key"
        )));
    }
    if text.chars().any(char::is_control) {
        return Err(SessionError::Invalid(
            "the key holds control characters or several lines; paste only the key".to_owned(),
        ));
    }
    Ok(())
}
