//! `hailer trust`: agree to the settings of this workspace's configuration file that run
//! programs on this machine or decide where keys go; `--show` lists them, `--revoke` withdraws
//! the agreement.

use std::process::ExitCode;

use anyhow::{Context, bail};
use hailer_config::home::HailerHome;
use hailer_config::trust::{self, Trust, TrustState, TrustStore};
use hailer_config::{LoadInputs, Loaded, Overrides};

/// What `hailer trust` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Grant,
    Show,
    Revoke,
}

pub(crate) fn run(
    home: &HailerHome,
    overrides: Overrides,
    action: Action,
) -> anyhow::Result<ExitCode> {
    let mut inputs =
        LoadInputs::from_process(overrides).context("cannot tell which folder this is")?;
    inputs.config_dir = Some(home.config_dir.clone());
    let loaded = load(&inputs)?;
    let Some(file) = loaded.trust.file.clone() else {
        bail!(
            "there is no hailer.toml in {} or above, so there is nothing to trust; run \
             `hailer trust` inside a workspace (or name its file with --config)",
            inputs.cwd.display()
        );
    };
    let store = TrustStore::in_config_dir(&home.config_dir);
    match action {
        Action::Show => show(&loaded.trust),
        Action::Revoke => match trust::revoke(&file, &store)? {
            Some(_) => println!(
                "Trust withdrawn for {}: its settings that need trust are not applied from the \
                 next session on.",
                file.display()
            ),
            None => println!("{} was not trusted; nothing changed.", file.display()),
        },
        Action::Grant => grant(&loaded, &store)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The configuration as the loader sees it; a file that does not load is an error naming its
/// problems, since what it would apply cannot be known.
fn load(inputs: &LoadInputs) -> anyhow::Result<Loaded> {
    match hailer_config::load(inputs) {
        Ok(loaded) => Ok(loaded),
        Err(error) => {
            let problems: Vec<String> = error.fatal.iter().map(|p| p.message.clone()).collect();
            bail!(
                "the configuration cannot be loaded, so it cannot be trusted:\n  {}\n\
                 Fix it first (`hailer config check` lists every problem).",
                problems.join("\n  ")
            )
        }
    }
}

fn grant(loaded: &Loaded, store: &TrustStore) -> anyhow::Result<()> {
    let trust = &loaded.trust;
    let file = trust.file.as_deref().map(|f| f.display().to_string());
    let file = file.unwrap_or_default();
    match trust.state {
        TrustState::NotNeeded => {
            println!(
                "Nothing in {file} needs trust: it names no program to run and no endpoint for \
                 a key."
            );
            return Ok(());
        }
        TrustState::UserConfig => {
            println!("{file} is in your own configuration folder: it is trusted already.");
            return Ok(());
        }
        TrustState::Trusted => {
            println!("{file} is trusted already, with exactly these settings:");
            list(trust);
            return Ok(());
        }
        TrustState::NotTrusted | TrustState::Changed => {}
    }
    trust::grant(trust, store).with_context(|| format!("cannot record trust for {file}"))?;
    println!("Trusted {file}. These settings apply from the next session on:");
    list(trust);
    println!(
        "A change to any of them asks again. A session that has a client on it keeps its \
         settings until it ends."
    );
    Ok(())
}

fn show(trust: &Trust) {
    let file = trust
        .file
        .as_deref()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let state = match trust.state {
        TrustState::NotNeeded => "nothing in it needs trust",
        TrustState::UserConfig => "trusted: it is in your own configuration folder",
        TrustState::Trusted => "trusted",
        TrustState::NotTrusted => "not trusted: these settings are not applied",
        TrustState::Changed => {
            "not trusted: these settings changed since you trusted the file, and are not applied"
        }
    };
    println!("{file}: {state}");
    list(trust);
    if trust.state.refuses() {
        println!("Run `hailer trust` to apply them.");
    }
}

fn list(trust: &Trust) {
    for setting in &trust.settings {
        println!("  {} {}", setting.name, setting.effect);
    }
}
