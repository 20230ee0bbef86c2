//! Is the server up, and is it the one we started?
//!
//! Ready means: `/health` answers healthy, `/api/sessions` refuses a request without a token,
//! and accepts ours. A server that passes the first check but not the others is someone else's.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::AUTHORIZATION;
use secrecy::{ExposeSecret, SecretString};

/// Each probe request's own time limit.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The result of one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Nothing (healthy) answers yet.
    NotYet,
    /// Our server, checking our token.
    Ready,
    /// A healthy server that does not check our token: not ours.
    Foreign,
}

/// An HTTP client for probing (no proxy, short timeouts).
pub(crate) fn probe_client() -> Option<reqwest::Client> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(PROBE_TIMEOUT)
        .build()
        .ok()
}

/// Probes the server at `base` (e.g. `http://127.0.0.1:2718`) once.
pub async fn probe(client: &reqwest::Client, base: &str, token: &SecretString) -> Probe {
    let healthy = match client.get(format!("{base}/health")).send().await {
        Ok(response) if response.status().is_success() => response
            .text()
            .await
            .is_ok_and(|body| body.contains("healthy")),
        _ => false,
    };
    if !healthy {
        return Probe::NotYet;
    }
    let sessions = format!("{base}/api/sessions");
    // One after the other on purpose: the token goes only to a server that has just refused a
    // stranger, never to whatever else may listen on the port.
    let without_token = client.get(&sessions).send().await.map(|r| r.status());
    let refuses_strangers = matches!(
        without_token,
        Ok(StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)
    );
    if !refuses_strangers {
        return if without_token.is_ok() {
            Probe::Foreign
        } else {
            Probe::NotYet
        };
    }
    let with_token = client
        .get(&sessions)
        .header(AUTHORIZATION, format!("Bearer {}", token.expose_secret()))
        .send()
        .await
        .map(|r| r.status());
    match with_token {
        Ok(StatusCode::OK) => Probe::Ready,
        Ok(_) => Probe::Foreign,
        Err(_) => Probe::NotYet,
    }
}
