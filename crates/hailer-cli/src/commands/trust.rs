//! `hailer trust`: agree to the settings of this workspace's configuration file that run
//! programs on this machine, widen what the kernel reaches, read or write outside the workspace,
//! or decide where keys go. It lists them first and asks (`--yes` agrees without asking, for
//! scripts); `--show` only lists them, `--revoke` withdraws the agreement.
//!
//! Everything printed here comes from a file someone else may have written, so it is shown
//! with visible escapes ([`escape_visible`]): the list reads as what the file holds.

use std::process::ExitCode;

use crate::output::outln;
use anyhow::{Context, bail};
use hailer_config::HailerHome;
use hailer_config::escape_visible;
use hailer_config::{LoadInputs, Loaded, Overrides};
use hailer_config::{SettingStatus, Trust, TrustState, TrustStore};

/// What `hailer trust` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Agree, after asking on the terminal unless `yes`.
    Grant {
        yes: bool,
    },
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
    let Some(file) = loaded.trust.file.as_deref() else {
        bail!(
            "there is no hailer.toml in {} or above, so there is nothing to trust; run \
             `hailer trust` inside a workspace (or name its file with --config)",
            escape_visible(&inputs.cwd.display().to_string())
        );
    };
    let file = escape_visible(&file.display().to_string());
    let store = TrustStore::in_config_dir(&home.config_dir);
    match action {
        Action::Show => show(&loaded.trust, &file)?,
        Action::Revoke => match hailer_config::revoke_trust(&loaded.trust, &store)? {
            Some(_) => outln!(
                "Trust withdrawn for {file}: its settings that need trust are left out from now \
                 on (a running session of this workspace drops them when a client next attaches \
                 or asks, after a running turn ends; every client is told)."
            )?,
            None => outln!("{file} was not trusted; nothing changed.")?,
        },
        Action::Grant { yes } => return grant(&loaded, &store, &file, yes),
    }
    Ok(ExitCode::SUCCESS)
}

/// The configuration as the loader sees it; a file that does not load is an error naming its
/// problems, since what it would apply cannot be known.
fn load(inputs: &LoadInputs) -> anyhow::Result<Loaded> {
    match hailer_config::load(inputs) {
        Ok(loaded) => Ok(loaded),
        Err(error) => {
            let problems: Vec<String> = error
                .fatal
                .iter()
                .map(|p| escape_visible(&p.message))
                .collect();
            bail!(
                "the configuration cannot be loaded, so it cannot be trusted:\n  {}\n\
                 Fix it first (`hailer config check` lists every problem).",
                problems.join("\n  ")
            )
        }
    }
}

fn grant(loaded: &Loaded, store: &TrustStore, file: &str, yes: bool) -> anyhow::Result<ExitCode> {
    let trust = &loaded.trust;
    match trust.state {
        TrustState::NotNeeded => {
            outln!(
                "Nothing in {file} needs trust: it names no program to run, no endpoint for a \
                 key, no wider reach for the kernel and no folder outside the workspace."
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        TrustState::UserConfig => {
            outln!("{file} is in your own configuration folder: it is trusted already.")?;
            return Ok(ExitCode::SUCCESS);
        }
        TrustState::Trusted => {
            outln!("{file} is trusted already, with exactly these settings:")?;
            list(trust)?;
            return Ok(ExitCode::SUCCESS);
        }
        TrustState::NotTrusted | TrustState::Changed => {}
    }
    outln!("{file} asks for these settings:")?;
    list(trust)?;
    if !yes {
        match crate::session_client::ask_on_terminal("Apply all of them in this workspace? [y/N] ")?
        {
            Some(true) => {}
            Some(false) => {
                outln!("Nothing was recorded; the settings marked above stay left out.")?;
                return Ok(ExitCode::FAILURE);
            }
            None => bail!(
                "nothing was recorded: `hailer trust` asks before it records anything, and \
                 there is no terminal to ask in. Read the list above (and {file}), then run \
                 `hailer trust --yes` to agree to exactly these settings"
            ),
        }
    }
    hailer_config::grant_trust(trust, store)
        .with_context(|| format!("cannot record trust for {file}"))?;
    outln!(
        "Trusted {file}. These settings apply from now on: a running session of this workspace \
         takes them up when a client next attaches or asks, after a running turn ends (a \
         kernel setting restarts its kernel then, and every client is told). A change to one \
         of them asks again for that one."
    )?;
    Ok(ExitCode::SUCCESS)
}

fn show(trust: &Trust, file: &str) -> std::io::Result<()> {
    let state = match trust.state {
        TrustState::NotNeeded => "nothing in it needs trust",
        TrustState::UserConfig => "trusted: it is in your own configuration folder",
        TrustState::Trusted => "trusted",
        TrustState::NotTrusted => "not trusted: these settings are left out where marked",
        TrustState::Changed => {
            "not trusted: these settings changed since you trusted the file, and are left out \
             where marked"
        }
    };
    outln!("{file}: {state}")?;
    list(trust)?;
    if trust.state.refuses() {
        outln!("Run `hailer trust` to apply them.")?;
    }
    Ok(())
}

fn list(trust: &Trust) -> std::io::Result<()> {
    for setting in &trust.settings {
        let mark = match setting.status {
            SettingStatus::Applied => "",
            SettingStatus::New => " (not applied)",
            SettingStatus::Changed => " (not applied: changed since you trusted it)",
        };
        outln!(
            "  {}{mark}",
            escape_visible(&format!("{} {}", setting.name, setting.effect))
        )?;
    }
    Ok(())
}
