//! Starting or attaching to the current workspace's session.

use std::time::Duration;

use anyhow::Context;
use hailer_protocol::{StartSessionParams, StartSessionResponse};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::http::Endpoint;

/// Flags that choose the workspace and its configuration.
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionFlags {
    pub workspace: Option<std::path::PathBuf>,
    pub config: Option<std::path::PathBuf>,
    pub kernel: Option<String>,
    pub model: Option<String>,
    pub new_thread: bool,
    /// `--exec-timeout`: how long one run of code may take, in seconds.
    pub exec_timeout: Option<u64>,
    /// `--run-sandbox-notebooks`: agree ahead of time to run notebooks a docker kernel wrote.
    pub run_sandbox_notebooks: bool,
}

/// How long the daemon may take to load the configuration and register the session.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// The values this shell contributes: its folder, its flags and its `HAILER_*` variables.
pub(crate) fn start_params(flags: &SessionFlags) -> anyhow::Result<StartSessionParams> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let absolute = |path: &std::path::PathBuf| {
        if path.is_absolute() {
            path.display().to_string()
        } else {
            cwd.join(path).display().to_string()
        }
    };
    let key_names = provider_variables(flags);
    let env = std::env::vars()
        .filter(|(name, _)| name.starts_with("HAILER_") || key_names.contains(name))
        .collect();
    Ok(StartSessionParams {
        cwd: cwd.display().to_string(),
        workspace: flags.workspace.as_ref().map(absolute),
        config: flags.config.as_ref().map(absolute),
        kernel: flags.kernel.clone(),
        model: flags.model.clone(),
        new_thread: flags.new_thread,
        exec_timeout_secs: flags.exec_timeout,
        run_sandbox_notebooks: flags.run_sandbox_notebooks,
        client: "terminal".to_owned(),
        env,
    })
}

/// This shell's provider key and header variables, which a turn it sends carries: the turn
/// uses this client's key, whoever attached last.
pub(crate) fn key_env(flags: &SessionFlags) -> std::collections::BTreeMap<String, String> {
    let key_names = provider_variables(flags);
    std::env::vars()
        .filter(|(name, value)| key_names.contains(name) && !value.is_empty())
        .collect()
}

/// Starts or attaches to the workspace's session.
pub(crate) async fn start(
    endpoint: &Endpoint,
    flags: &SessionFlags,
) -> anyhow::Result<StartSessionResponse> {
    start_as(endpoint, flags, "terminal").await
}

/// Starts or attaches to the workspace's session as the client named `client`.
pub(crate) async fn start_as(
    endpoint: &Endpoint,
    flags: &SessionFlags,
    client: &str,
) -> anyhow::Result<StartSessionResponse> {
    let mut params = start_params(flags)?;
    client.clone_into(&mut params.client);
    let reply = endpoint
        .post("/v1/sessions", &params, START_TIMEOUT)
        .await?;
    let needs_consent = reply
        .error_body()
        .filter(|body| body.code == hailer_protocol::ErrorCode::ConsentRequired);
    match needs_consent {
        Some(body) if ask_consent(&body.message)? => {
            params.run_sandbox_notebooks = true;
            endpoint
                .post("/v1/sessions", &params, START_TIMEOUT)
                .await?
                .json::<StartSessionResponse>()
        }
        _ => reply.json::<StartSessionResponse>(),
    }
}

/// Asks the user on the terminal; without one (or on anything but yes), the answer is no.
fn ask_consent(question: &str) -> anyhow::Result<bool> {
    Ok(ask_on_terminal(&format!("Careful: {question}.\nRun them? [y/N] "))?.unwrap_or(false))
}

/// Writes `prompt` to the terminal and reads a yes or no; `None` when there is no terminal to
/// ask in. Anything but yes is no.
pub(crate) fn ask_on_terminal(prompt: &str) -> anyhow::Result<Option<bool>> {
    use std::io::{BufRead as _, IsTerminal as _, Write as _};
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return Ok(None);
    }
    let mut stderr = std::io::stderr();
    write!(stderr, "{prompt}")?;
    stderr.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(Some(matches!(
        answer.trim(),
        "y" | "Y" | "yes" | "Yes" | "YES"
    )))
}

/// The variables the workspace's providers read: their key variables and header variables.
/// Their values go to the daemon, which keeps them in memory only.
fn provider_variables(flags: &SessionFlags) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::from(["OPENAI_API_KEY".to_owned()]);
    let overrides = hailer_config::Overrides {
        workspace: flags.workspace.clone(),
        config: flags.config.clone(),
        ..Default::default()
    };
    if let Ok(inputs) = hailer_config::LoadInputs::from_process(overrides)
        && let Ok(loaded) = hailer_config::load(&inputs)
    {
        for provider in loaded.config.model_providers.values() {
            names.insert(provider.env_key.clone());
            names.extend(provider.env_http_headers.values().cloned());
        }
    }
    names
}

/// A session's event stream.
pub(crate) type EventSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Attaches to the session's events: `attached` first, then everything in order. While the
/// socket is open the session counts this client as attached.
pub(crate) async fn follow_events(
    endpoint: &Endpoint,
    session_id: &str,
) -> anyhow::Result<EventSocket> {
    connect(endpoint, &format!("/v1/sessions/{session_id}/events"))
        .await
        .context("cannot follow the session's events")
}

/// Follows the session's events again after a dropped connection: those after `after` that the
/// session still keeps come first.
pub(crate) async fn resume_events(
    endpoint: &Endpoint,
    session_id: &str,
    after: u64,
) -> anyhow::Result<EventSocket> {
    connect(
        endpoint,
        &format!("/v1/sessions/{session_id}/events?after={after}"),
    )
    .await
    .context("cannot follow the session's events again")
}

/// Follows the session's kernel log from its last `tail` lines on: one text message per line,
/// the token masked. The daemon answers once the kernel runs.
pub(crate) async fn follow_kernel_log(
    endpoint: &Endpoint,
    session_id: &str,
    tail: usize,
) -> anyhow::Result<EventSocket> {
    connect(
        endpoint,
        &format!("/v1/sessions/{session_id}/kernel/log?tail={tail}"),
    )
    .await
    .context("cannot follow the kernel's log")
}

/// The next text message of a socket; `None` once it closed.
pub(crate) async fn next_text(socket: &mut EventSocket) -> Option<String> {
    use futures_util::StreamExt as _;
    while let Some(message) = socket.next().await {
        let Ok(message) = message else { return None };
        if message.is_close() {
            return None;
        }
        if let Ok(text) = message.into_text() {
            return Some(text.to_string());
        }
    }
    None
}

/// The next session envelope of an event socket; `None` once it closed.
pub(crate) async fn next_envelope(
    socket: &mut EventSocket,
) -> Option<hailer_protocol::SessionEnvelope> {
    loop {
        let text = next_text(socket).await?;
        if let Ok(envelope) = serde_json::from_str(&text) {
            return Some(envelope);
        }
    }
}

/// A WebSocket to `path` with the daemon's token.
async fn connect(endpoint: &Endpoint, path: &str) -> anyhow::Result<EventSocket> {
    let mut request = format!("ws://127.0.0.1:{}{path}", endpoint.port).into_client_request()?;
    request.headers_mut().insert(
        "Authorization",
        HeaderValue::from_str(&format!("Bearer {}", endpoint.token))?,
    );
    let (socket, _) = tokio_tungstenite::connect_async(request).await?;
    Ok(socket)
}
