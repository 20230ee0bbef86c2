//! `hailer notebook --foreground`: the workspace's kernel alone, no chat. Prints the `Kernel:`
//! line and the signed notebook link, follows the kernel's log, and stops the kernel on Ctrl+C.
//! When the kernel ends for another reason it says why and returns the kernel's code.

use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_protocol::{KernelExit, NotebookChange, NotebookList, NotebookRef, SessionEvent};
use tokio::sync::watch;

use super::kernel_ready::{Wait, ctrl_c_presses, wait_for_kernel};
use crate::daemon_client;
use crate::http::Endpoint;
use crate::output::outln;
use crate::session_client::{
    self, EventSocket, SessionFlags, follow_kernel_log, next_envelope, next_text,
};

/// How many earlier log lines come first.
const LOG_TAIL: usize = 200;
/// Stopping a docker kernel copies its notebooks back first, for up to about a minute.
const STOP_TIMEOUT: Duration = Duration::from_secs(120);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the last log lines may take to arrive after the kernel ended.
const LAST_LINES: Duration = Duration::from_millis(500);

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    open_browser: bool,
) -> anyhow::Result<ExitCode> {
    let mut presses = ctrl_c_presses();
    let connected = daemon_client::find_or_start(home).await?;
    let endpoint = &connected.endpoint;
    // A lingering session whose kernel failed is replaced by hailerd itself.
    let started = session_client::start(endpoint, flags).await?;
    let session = &started.session;
    if started.attached && session.clients > 0 {
        eprintln!(
            "hailer: a session with {} client(s) is already running in {}. --foreground stops \
             its kernel when it ends: leave those clients first, or run `hailer` to join them.",
            session.clients, session.workspace
        );
        return Ok(ExitCode::FAILURE);
    }
    for note in &session.warnings {
        eprintln!("  {note}");
    }
    if let Some(problem) = &session.agent_problem {
        eprintln!("  The agent is not available: {}", problem.message);
    }
    let id = session.id.clone();
    let mut events = session_client::follow_events(endpoint, &id).await?;
    eprintln!("Starting the kernel for {} ...", session.workspace);
    match wait_for_kernel(&mut events, &mut presses).await {
        Wait::Ready => {}
        Wait::Interrupted => {
            stop(endpoint, &id).await;
            return Ok(ExitCode::SUCCESS);
        }
        ended => {
            ended.explain();
            if matches!(ended, Wait::Failed { .. }) {
                stop(endpoint, &id).await;
            }
            return Ok(ExitCode::FAILURE);
        }
    }
    outln!("Kernel:   {}", session.kernel_line)?;
    let notebooks: NotebookList = endpoint
        .get(&format!("/v1/sessions/{id}/notebooks"), REQUEST_TIMEOUT)
        .await?
        .json()?;
    let opened: NotebookChange = endpoint
        .post(
            &format!("/v1/sessions/{id}/notebooks/open"),
            &NotebookRef {
                notebook: notebooks.active.unwrap_or_default(),
            },
            REQUEST_TIMEOUT,
        )
        .await?
        .json()?;
    if let Some(link) = &opened.link {
        outln!("Notebook: {link}")?;
        outln!("          (the link signs in to this kernel: keep it to yourself)")?;
        if open_browser {
            crate::browser::open(link);
        }
    }
    outln!("Following the kernel's log. Ctrl+C stops the kernel and removes it.")?;
    let log = match follow_kernel_log(endpoint, &id, LOG_TAIL).await {
        Ok(log) => Some(log),
        Err(error) => {
            eprintln!("warning: {error:#}");
            None
        }
    };
    follow(endpoint, &id, &mut events, log, &mut presses).await
}

/// Prints the log until Ctrl+C (the kernel is stopped: 0) or the kernel's end (why, and its
/// code).
async fn follow(
    endpoint: &Endpoint,
    id: &str,
    events: &mut EventSocket,
    mut log: Option<EventSocket>,
    presses: &mut watch::Receiver<u32>,
) -> anyhow::Result<ExitCode> {
    loop {
        tokio::select! {
            changed = presses.changed() => {
                if changed.is_ok() {
                    stop(endpoint, id).await;
                    return Ok(ExitCode::SUCCESS);
                }
            }
            line = next_line(log.as_mut()) => match line {
                Some(line) => outln!("{line}")?,
                None => log = None,
            },
            envelope = next_envelope(events) => {
                let Some(envelope) = envelope else {
                    eprintln!("hailer: lost the connection to hailerd; the kernel may still run");
                    return Ok(ExitCode::FAILURE);
                };
                match envelope.event {
                    SessionEvent::Kernel { exit: Some(exit), .. } => {
                        return ended(endpoint, id, &exit, log.as_mut()).await;
                    }
                    SessionEvent::Kernel {
                        status: hailer_protocol::KernelStatus::Failed,
                        message,
                        hint,
                        ..
                    } => {
                        eprintln!(
                            "hailer: the kernel failed: {}",
                            message.unwrap_or_default()
                        );
                        if let Some(hint) = hint {
                            eprintln!("  {hint}");
                        }
                        stop(endpoint, id).await;
                        return Ok(ExitCode::FAILURE);
                    }
                    SessionEvent::Notice { message, .. } => eprintln!("  {message}"),
                    SessionEvent::Stopped { reason } => {
                        eprintln!("hailer: the session stopped ({reason}); the kernel is gone.");
                        return Ok(ExitCode::FAILURE);
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The kernel ended on its own: its last lines, why, then the session is stopped (what is left
/// of it removed) and the kernel's code returned. A failed write of those lines is the error.
async fn ended(
    endpoint: &Endpoint,
    id: &str,
    exit: &KernelExit,
    log: Option<&mut EventSocket>,
) -> anyhow::Result<ExitCode> {
    if let Some(log) = log {
        let last_lines = tokio::time::timeout(LAST_LINES, async {
            while let Some(line) = next_text(log).await {
                outln!("{line}")?;
            }
            std::io::Result::Ok(())
        })
        .await;
        if let Ok(written) = last_lines {
            written?;
        }
    }
    eprintln!("hailer: {}", exit.message);
    stop(endpoint, id).await;
    Ok(ExitCode::from(exit.client_exit_code()))
}

async fn next_line(log: Option<&mut EventSocket>) -> Option<String> {
    match log {
        Some(log) => next_text(log).await,
        None => std::future::pending().await,
    }
}

/// Stops the session: its kernel is stopped and removed (a docker kernel's notebooks are
/// copied back first).
async fn stop(endpoint: &Endpoint, id: &str) {
    eprintln!("Stopping the kernel ...");
    match endpoint
        .delete(&format!("/v1/sessions/{id}"), STOP_TIMEOUT)
        .await
    {
        Ok(reply) if (200..300).contains(&reply.status) || reply.status == 404 => {
            eprintln!("Stopped and removed the kernel.");
        }
        Ok(reply) => eprintln!(
            "hailer: hailerd answered {} when asked to stop the kernel",
            reply.status
        ),
        Err(error) => eprintln!("hailer: could not stop the kernel: {error:#}"),
    }
}
