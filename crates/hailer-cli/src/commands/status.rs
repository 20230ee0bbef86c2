//! `hailer status`: the daemon, its sessions and their kernels, and this workspace's settings.
//! Starts nothing.

use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use hailer_protocol::{DaemonInfo, SessionInfo, StatusParams, StatusReport};
use serde::Serialize;

use crate::daemon_client;
use crate::http::Endpoint;
use crate::output::{out, outln};
use crate::session_client::{SessionFlags, start_params};

/// The daemon may read a stored key from the OS credential store, and ask the engine when it has
/// not lately: both can be slow.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    daemon: Option<DaemonInfo>,
    sessions: Vec<SessionInfo>,
    workspace: Option<WorkspaceStatus>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WorkspaceStatus {
    root: String,
    config: Option<String>,
    model: String,
    provider: String,
    credentials: String,
    kernel: String,
    /// The docker kernel's image and what its labels say; `None` under unsafe-local.
    image: Option<String>,
    /// The id of this workspace's live session, if any.
    session: Option<String>,
}

pub(crate) async fn run(
    home: &HailerHome,
    overrides: Overrides,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let flags = SessionFlags {
        workspace: overrides.workspace.clone(),
        config: overrides.config.clone(),
        model: match (&overrides.provider, &overrides.model) {
            (Some(provider), Some(model)) => Some(format!("{provider}:{model}")),
            (None, Some(model)) => Some(model.clone()),
            _ => None,
        },
        ..SessionFlags::default()
    };
    let inputs = LoadInputs::from_process(overrides)?;
    let workspace = hailer_config::load(&inputs)
        .ok()
        .map(|loaded| WorkspaceStatus {
            root: loaded.workspace.root.display().to_string(),
            config: loaded
                .config_path
                .as_ref()
                .map(|path| path.display().to_string()),
            model: loaded.config.model.name.clone(),
            provider: crate::chat::provider_line(&loaded),
            // hailerd judges the key; filled in below when it runs.
            credentials: "not checked: hailerd is not running".to_owned(),
            kernel: loaded.config.kernel_line(&hailer_kernel_bundle::contract()),
            image: (loaded.config.kernel.runtime == hailer_config::Runtime::Docker).then(|| {
                loaded.config.kernel.image.clone().unwrap_or_else(|| {
                    hailer_kernel_bundle::default_image_name(&hailer_kernel_bundle::contract())
                })
            }),
            session: None,
        });
    let mut status = Status {
        daemon: None,
        sessions: Vec::new(),
        workspace,
    };
    // One request: the daemon answers everything at once, the engine's status as last found.
    let image = status.workspace.as_ref().and_then(|w| w.image.clone());
    let report = match daemon_client::advertised(home) {
        Some((endpoint, pid)) => ask(&endpoint, &flags, image.clone())
            .await
            .filter(|report| report.daemon.pid == pid),
        None => None,
    };
    if let Some(workspace) = status.workspace.as_mut() {
        if let Some(shown) = workspace.image.as_mut() {
            *shown = match &report {
                Some(report) => match &report.docker {
                    Some(docker) => crate::docker_probe::describe_image(docker, shown),
                    None => format!("{shown} (hailerd could not ask Docker: not checked)"),
                },
                None => format!("{shown} (hailerd is not running: not checked)"),
            };
        }
        if let Some(report) = &report {
            workspace.credentials = match (&report.model_check, &report.model_check_error) {
                (Some(check), _) => crate::model_check::summary(check),
                (None, Some(error)) => format!("not checked: {error}"),
                (None, None) => "not checked".to_owned(),
            };
        }
    }
    if let Some(report) = report {
        status.sessions = report.sessions;
        status.daemon = Some(report.daemon);
    }
    if let Some(workspace) = &mut status.workspace {
        let live = status
            .sessions
            .iter()
            .find(|session| session.workspace == workspace.root);
        workspace.session = live.map(|session| session.id.clone());
        // The kernel that runs is the one to name; the file may ask for another already.
        if let Some(session) = live {
            workspace.kernel = running_kernel_line(&session.kernel_line, &workspace.kernel);
            if session.runtime != "docker" {
                workspace.image = None;
            }
        }
    }
    if json {
        outln!(
            "{}",
            hailer_render::escape_json_text(&serde_json::to_string_pretty(&status)?)
        )?;
    } else {
        // The settings shown come from the workspace's file, which may come from someone
        // else: shown as written, with visible escapes.
        out!("{}", hailer_config::escape_visible(&text(&status)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Everything the daemon at `endpoint` says for `status`, or `None` when it does not answer.
async fn ask(
    endpoint: &Endpoint,
    flags: &SessionFlags,
    image: Option<String>,
) -> Option<StatusReport> {
    let params = StatusParams {
        session: start_params(flags).ok()?,
        image,
    };
    endpoint
        .post("/v1/status", &params, REQUEST_TIMEOUT)
        .await
        .ok()?
        .json::<StatusReport>()
        .ok()
}

/// The live session's kernel, and the one `configured` names when it differs: that one runs
/// once the session applies the change (after a running turn, at the next attach or turn).
fn running_kernel_line(running: &str, configured: &str) -> String {
    if running == configured {
        running.to_owned()
    } else {
        format!(
            "{running} — running now; hailer.toml asks for {configured}, which the kernel \
             restarts to apply at the next attach or turn"
        )
    }
}

fn text(status: &Status) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    match &status.daemon {
        Some(info) => line(format!(
            "hailerd {}: pid {}, port {}, up {} s, {} client(s)",
            info.version, info.pid, info.port, info.uptime_secs, info.clients
        )),
        None => line(
            "hailerd: not running (it starts with the next hailer command that needs it)"
                .to_owned(),
        ),
    }
    if status.daemon.is_some() {
        if status.sessions.is_empty() {
            line("Sessions: none".to_owned());
        } else {
            line(format!("Sessions ({}):", status.sessions.len()));
        }
        for session in &status.sessions {
            line(format!("  {}  {}", session.id, session.workspace));
            let state = format!("{:?}", session.kernel).to_lowercase();
            line(format!("    kernel:   {} ({state})", session.kernel_line));
            if let Some(error) = &session.kernel_error {
                line(format!("    error:    {error}"));
            }
            if let Some(hint) = &session.kernel_hint {
                line(format!("    hint:     {hint}"));
            }
            line(format!(
                "    notebook: {}",
                session
                    .active_notebook
                    .as_deref()
                    .unwrap_or("(the configured one)")
            ));
            line(format!("    clients:  {}", session.clients));
            let agent = match &session.agent_problem {
                Some(problem) => format!("not available: {}", problem.message),
                None => format!("{} (ready)", session.model),
            };
            line(format!("    agent:    {agent}"));
        }
    }
    match &status.workspace {
        Some(workspace) => {
            line(format!("Workspace:   {}", workspace.root));
            line(format!(
                "Config:      {}",
                workspace
                    .config
                    .as_deref()
                    .unwrap_or("defaults (no hailer.toml found)")
            ));
            line(format!("Model:       {}", workspace.model));
            line(format!("Provider:    {}", workspace.provider));
            line(format!("Credentials: {}", workspace.credentials));
            line(format!("Kernel:      {}", workspace.kernel));
            if let Some(image) = &workspace.image {
                line(format!("Image:       {image}"));
            }
            line(format!(
                "Session:     {}",
                workspace.session.as_deref().unwrap_or("none live")
            ));
        }
        None => {
            line("Workspace:   the configuration cannot be loaded; run `hailer doctor`".to_owned());
        }
    }
    out
}
