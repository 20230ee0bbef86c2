//! `POST /v1/credentials/check`: whether a session started from the asking shell could reach
//! its model. `hailer doctor`, `hailer status` and the chat's `/status` ask here, so they say
//! what a session would find: the answer comes from [`super::model_client::build`], the
//! judgement every attach and every turn makes.

use std::path::Path;

use hailer_protocol::{AgentProblem, ModelCheck, StartSessionParams};

use super::{Unavailable, login, model_client};
use crate::session::{SessionError, load_inputs};

/// Judges the model settings and the key of the workspace a session start with `params` would
/// attach to; nothing is started.
pub(crate) async fn check(
    params: &StartSessionParams,
    config_dir: &Path,
) -> Result<ModelCheck, SessionError> {
    let inputs = load_inputs(params, config_dir)?;
    let credentials_dir = login::credentials_dir(config_dir);
    let client_env = params.env.clone();
    // The configuration is read from disk, and a stored key may be read from the OS credential
    // store, which can wait on D-Bus: both on the blocking pool.
    tokio::task::spawn_blocking(move || {
        let loaded = hailer_config::load(&inputs)?;
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
            Ok(built) => (Some(built.credentials_line()), None),
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
