//! `hailer exec`: run Python in the workspace's kernel and print what it printed and returned.

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use hailer_config::HailerHome;
use hailer_protocol::{ExecParams, ExecResponse};

use crate::daemon_client;
use crate::output::out;
use crate::session_client::{self, SessionFlags};

/// How long beyond the run's own limit the client waits (the kernel may still be starting).
const MARGIN: Duration = Duration::from_secs(960);
/// How long a run may wait unanswered before the client looks whether another run holds the
/// kernel, and says so.
const BUSY_NOTICE_AFTER: Duration = Duration::from_millis(700);

/// Where the code comes from.
#[derive(Debug)]
pub(crate) enum Source {
    Inline(String),
    File(std::path::PathBuf),
    Stdin,
}

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    source: Source,
    notebook: Option<String>,
    timeout_secs: Option<u64>,
) -> anyhow::Result<ExitCode> {
    let code = match source {
        Source::Inline(code) => code,
        Source::File(path) => std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        Source::Stdin => {
            let mut code = String::new();
            std::io::stdin()
                .read_to_string(&mut code)
                .context("cannot read the code from standard input")?;
            code
        }
    };
    let connected = daemon_client::find_or_start(home).await?;
    let started = session_client::start(&connected.endpoint, flags).await?;
    for warning in &started.session.warnings {
        eprintln!("warning: {}", hailer_render::clean(warning));
    }
    let params = ExecParams {
        code,
        notebook,
        timeout_secs,
        client: Some("terminal".to_owned()),
    };
    let path = format!("/v1/sessions/{}/exec", started.session.id);
    // Without --timeout the session's limit applies, which the client does not know; a run
    // may also wait behind another one first.
    let limit = timeout_secs
        .or(flags.exec_timeout)
        .unwrap_or(hailer_protocol::MAX_EXEC_TIMEOUT_SECS);
    let wait = Duration::from_secs(limit) + MARGIN;
    let request = connected.endpoint.post(&path, &params, wait);
    tokio::pin!(request);
    let reply = tokio::select! {
        reply = &mut request => reply,
        () = tokio::time::sleep(BUSY_NOTICE_AFTER) => {
            say_if_busy(&connected.endpoint, &started.session.id).await;
            request.await
        }
    };
    let response: ExecResponse = reply?.json()?;
    print_response(&response)?;
    Ok(if response.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Says on standard error that the run waits, when the session's kernel is busy with another
/// run (an agent's turn, or another client's code) or still starting.
async fn say_if_busy(endpoint: &crate::http::Endpoint, session: &str) {
    let Ok(reply) = endpoint
        .get(&format!("/v1/sessions/{session}"), Duration::from_secs(5))
        .await
    else {
        return;
    };
    let Ok(info) = reply.json::<hailer_protocol::SessionInfo>() else {
        return;
    };
    match info.kernel {
        hailer_protocol::KernelStatus::Running => eprintln!(
            "Waiting: the kernel is busy with another run (an agent's turn or another client's \
             code); this code runs when it ends. `hailer cancel` cancels a running turn."
        ),
        hailer_protocol::KernelStatus::Starting | hailer_protocol::KernelStatus::Restarting => {
            eprintln!("Waiting for the kernel to start; this code runs once it is ready.");
        }
        _ => {}
    }
}

fn print_response(response: &ExecResponse) -> std::io::Result<()> {
    // What the kernel printed reaches the terminal only cleaned of control sequences; a run
    // whose result cannot be cleaned is not printed (it always can: it came as JSON).
    let Some(response) = hailer_render::clean_all(response) else {
        eprintln!("hailer: the run's output could not be read");
        return Ok(());
    };
    for piece in output(&response) {
        if piece.is_error {
            eprint!("{}", piece.text);
        } else {
            out!("{}", piece.text)?;
        }
    }
    Ok(())
}

/// A piece of what a run printed: for standard output, or (`is_error`) standard error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutputPiece {
    pub is_error: bool,
    pub text: String,
}

/// What a person sees of a run, in order: restart note, output, value, errors, failure.
pub(crate) fn output(response: &ExecResponse) -> Vec<OutputPiece> {
    let piece = |is_error: bool, text: String| OutputPiece { is_error, text };
    let mut pieces = Vec::new();
    if response.fresh_kernel {
        pieces.push(piece(
            true,
            "note: the kernel was restarted; variables from earlier runs are gone\n".to_owned(),
        ));
    }
    if !response.stdout.is_empty() {
        pieces.push(piece(false, response.stdout.clone()));
    }
    if let Some(value) = &response.value {
        let text = if value.text.is_empty() {
            format!("[{} output]\n", value.mimetype)
        } else {
            format!("{}\n", value.text)
        };
        pieces.push(piece(false, text));
    }
    if !response.stderr.is_empty() {
        pieces.push(piece(true, response.stderr.clone()));
    }
    if !response.success {
        pieces.push(piece(true, "(the code failed)\n".to_owned()));
    }
    pieces
}
