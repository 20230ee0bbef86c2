//! `POST /v1/credentials/check`: whether a session started from the asking shell could reach
//! its model. `hailer doctor`, `hailer status` and the chat's `/status` ask here, so they say
//! what a session would find: the answer comes from [`super::model_client::build`], the
//! judgement every attach and every turn makes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hailer_agent::KeySource;
use hailer_protocol::{AgentProblem, ModelCheck, StartSessionParams};

use super::{Unavailable, login, model_client};
use hailerd_session::{SessionError, is_settings_variable, load_inputs};

/// Judges the model settings and the key of the workspace a session start with `params` would
/// attach to; nothing is started.
/// `live` holds each live session's workspace and the environment it keeps: the key variables
/// this shell lacks are taken from its workspace's session, as its next turn would.
pub async fn check(
    params: &StartSessionParams,
    config_dir: &Path,
    live: Vec<(PathBuf, BTreeMap<String, String>)>,
) -> Result<ModelCheck, SessionError> {
    let inputs = load_inputs(params, config_dir)?;
    let credentials_dir = login::credentials_dir(config_dir);
    let asked = params.env.clone();
    // The configuration is read from disk, and a stored key may be read from the OS credential
    // store, which can wait on D-Bus: both on the blocking pool.
    tokio::task::spawn_blocking(move || {
        let loaded = hailer_config::load(&inputs)?;
        let kept = live
            .into_iter()
            .find(|(workspace, _)| *workspace == loaded.workspace.root)
            .map(|(_, env)| env)
            .unwrap_or_default();
        let client_env = with_kept_keys(&asked, kept);
        let (provider, model) = (
            loaded.config.model.provider.clone(),
            loaded.config.model.name.clone(),
        );
        let verdict = model_client::build(
            &loaded.config,
            &provider,
            &model,
            &client_env,
            &credentials_dir,
        );
        let (credentials, problem) = match verdict {
            Ok(built) => {
                let line = built.credentials_line();
                let from_session = matches!(&built.key, Some((_, KeySource::Environment)))
                    && asked.get(&built.env_key).is_none_or(String::is_empty);
                let line = if from_session {
                    format!(
                        "{} as the live session keeps it (sent by another client; this shell \
                         has none)",
                        built.env_key
                    )
                } else {
                    line
                };
                (Some(line), None)
            }
            Err(refusal) => {
                let unavailable = Unavailable::refused(refusal, &loaded);
                let problem = AgentProblem {
                    message: unavailable.message,
                    hint: unavailable.hint,
                };
                (None, Some(problem))
            }
        };
        Ok(ModelCheck {
            provider,
            model,
            credentials,
            problem,
        })
    })
    .await
    .map_err(|error| SessionError::CredentialStore(format!("the key lookup failed: {error}")))?
}

/// The asking shell's variables, with the key and header variables it lacks filled in from
/// what the live session keeps; its `HAILER_*` variables are its own.
fn with_kept_keys(
    asked: &BTreeMap<String, String>,
    kept: BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = kept
        .into_iter()
        .filter(|(name, value)| !is_settings_variable(name) && !value.is_empty())
        .collect();
    env.extend(
        asked
            .iter()
            .filter(|(name, value)| is_settings_variable(name) || !value.is_empty())
            .map(|(name, value)| (name.clone(), value.clone())),
    );
    env
}
