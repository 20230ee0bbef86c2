//! Whether this shell's session could reach its model, as hailerd judges it: `doctor`, `status`
//! and the chat's `/status` print that judgement, never one of their own.

use std::time::Duration;

use hailer_protocol::ModelCheck;

use crate::http::Endpoint;
use crate::session_client::{SessionFlags, start_params};

/// A stored key may be read from the OS credential store, which can be slow to answer.
const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// Asks hailerd, with the values a session start from this shell would send.
pub(crate) async fn ask(endpoint: &Endpoint, flags: &SessionFlags) -> anyhow::Result<ModelCheck> {
    let params = start_params(flags)?;
    endpoint
        .post("/v1/credentials/check", &params, CHECK_TIMEOUT)
        .await?
        .json::<ModelCheck>()
}

/// The judgement in a few words: where the key comes from, or what is wrong.
pub(crate) fn summary(check: &ModelCheck) -> String {
    match (&check.problem, &check.credentials) {
        (Some(problem), _) => problem.message.clone(),
        (None, Some(credentials)) => credentials.clone(),
        (None, None) => "ok".to_owned(),
    }
}
