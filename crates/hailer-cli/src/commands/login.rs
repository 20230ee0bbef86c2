//! `hailer login` and `hailer logout`: keep or forget a provider's API key.

use std::io::{BufRead as _, IsTerminal as _};
use std::time::Duration;

use anyhow::{Context as _, bail};
use hailer_config::HailerHome;
use hailer_protocol::{CredentialTarget, CredentialsResponse, LoginParams};

use crate::daemon_client;
use crate::output::outln;
use crate::session_client::{SessionFlags, start_params};

/// The OS credential store may wait on its service for a while.
const STORE_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) async fn login(
    home: &HailerHome,
    flags: &SessionFlags,
    provider: Option<String>,
) -> anyhow::Result<()> {
    let target = target(flags, provider)?;
    let key = read_key(target.provider.as_deref())?;
    let connected = daemon_client::find_or_start(home).await?;
    let done: CredentialsResponse = connected
        .endpoint
        .post(
            "/v1/credentials/login",
            &LoginParams { target, key },
            STORE_TIMEOUT,
        )
        .await?
        .json()?;
    let place = match done.stored_in.as_deref() {
        Some("keyring") => "the OS credential store",
        Some("file") => "the key file (readable by you only)",
        _ => "the credential store",
    };
    outln!(
        "Stored the key for provider '{}' in {place}.",
        done.provider
    )?;
    warn_if_shadowed(&done.env_key)?;
    Ok(())
}

pub(crate) async fn logout(
    home: &HailerHome,
    flags: &SessionFlags,
    provider: Option<String>,
) -> anyhow::Result<()> {
    let target = target(flags, provider)?;
    let connected = daemon_client::find_or_start(home).await?;
    let done: CredentialsResponse = connected
        .endpoint
        .post("/v1/credentials/logout", &target, STORE_TIMEOUT)
        .await?
        .json()?;
    if done.removed {
        outln!("Removed the stored key of provider '{}'.", done.provider)?;
    } else {
        outln!("No key was stored for provider '{}'.", done.provider)?;
    }
    warn_if_shadowed(&done.env_key)?;
    Ok(())
}

/// The workspace and provider as this shell sees them; only `HAILER_*` variables are sent,
/// never a key from the environment.
fn target(flags: &SessionFlags, provider: Option<String>) -> anyhow::Result<CredentialTarget> {
    let params = start_params(flags)?;
    Ok(CredentialTarget {
        cwd: params.cwd,
        workspace: params.workspace,
        config: params.config,
        provider,
        env: params
            .env
            .into_iter()
            .filter(|(name, _)| name.starts_with("HAILER_"))
            .collect(),
    })
}

/// The key: typed at a hidden prompt on a terminal, else the first line of standard input.
fn read_key(provider: Option<&str>) -> anyhow::Result<String> {
    let key = if std::io::stdin().is_terminal() {
        let label = provider.unwrap_or("the configured provider");
        rpassword::prompt_password(format!("API key for {label} (input hidden): "))
            .context("cannot read the key from the terminal")?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("cannot read the key from standard input")?;
        line
    };
    let key = key.trim().to_owned();
    if key.is_empty() {
        bail!("no key given; nothing was stored");
    }
    Ok(key)
}

fn warn_if_shadowed(env_key: &str) -> std::io::Result<()> {
    if std::env::var(env_key).is_ok_and(|value| !value.trim().is_empty()) {
        outln!(
            "Note: {env_key} is set in this shell; sessions started from here use it instead of \
             the stored key."
        )?;
    }
    Ok(())
}
