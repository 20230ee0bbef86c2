//! Waiting on a session's events until its kernel runs, for the commands that need it before
//! anything else (`notebook --foreground`, `demo`); and Ctrl+C as something to wait on.

use hailer_protocol::{KernelStatus, NoticeLevel, SessionEvent, SessionInfo};
use tokio::sync::watch;

use super::kernel::job_view::JobView;
use crate::session_client::{EventSocket, next_envelope};

/// How the wait ended.
#[derive(Debug)]
pub(crate) enum Wait {
    /// The kernel runs.
    Ready,
    /// It could not start.
    Failed {
        message: String,
        hint: Option<String>,
    },
    /// The user pressed Ctrl+C.
    Interrupted,
    /// The session stopped (the daemon stopped, say).
    Stopped(String),
    /// The event stream closed.
    Lost,
}

impl Wait {
    /// Tells the user, on standard error, why a wait that did not end ready ended.
    pub(crate) fn explain(&self) {
        match self {
            Self::Ready | Self::Interrupted => {}
            Self::Failed { message, hint } => {
                eprintln!("hailer: the kernel did not start: {message}");
                if let Some(hint) = hint {
                    eprintln!("  {hint}");
                }
            }
            Self::Stopped(reason) => eprintln!("hailer: the session stopped: {reason}"),
            Self::Lost => eprintln!("hailer: lost the connection to hailerd"),
        }
    }
}

/// Counts Ctrl+C presses from now on (the process no longer ends on the first one).
pub(crate) fn ctrl_c_presses() -> watch::Receiver<u32> {
    let (sender, receiver) = watch::channel(0u32);
    tokio::spawn(async move {
        while tokio::signal::ctrl_c().await.is_ok() {
            sender.send_modify(|presses| *presses += 1);
        }
    });
    receiver
}

/// Waits until the kernel of the session runs, printing its progress notices, and the steps of
/// an environment set-up as a job's, to stderr.
pub(crate) async fn wait_for_kernel(
    socket: &mut EventSocket,
    presses: &mut watch::Receiver<u32>,
) -> Wait {
    let mut setup: Option<JobView> = None;
    loop {
        let envelope = tokio::select! {
            changed = presses.changed() => {
                if changed.is_ok() {
                    return Wait::Interrupted;
                }
                continue;
            }
            envelope = next_envelope(socket) => envelope,
        };
        let Some(envelope) = envelope else {
            return Wait::Lost;
        };
        match envelope.event {
            SessionEvent::Attached { session } => {
                if let Some(wait) = judge(&session) {
                    return wait;
                }
            }
            SessionEvent::Kernel {
                status: KernelStatus::Idle | KernelStatus::Running,
                ..
            } => return Wait::Ready,
            SessionEvent::Kernel {
                status: KernelStatus::Failed | KernelStatus::Stopped,
                message,
                hint,
                exit,
            } => {
                return Wait::Failed {
                    message: exit
                        .map(|exit| exit.message)
                        .or(message)
                        .unwrap_or_else(|| "the kernel stopped".to_owned()),
                    hint,
                };
            }
            SessionEvent::Notice { level, message } => {
                let prefix = match level {
                    NoticeLevel::Info => "",
                    NoticeLevel::Warning => "warning: ",
                    NoticeLevel::Error => "error: ",
                };
                let said = format!("  {prefix}{message}");
                match setup.as_mut() {
                    Some(view) => view.println(&said),
                    None => eprintln!("{said}"),
                }
            }
            SessionEvent::KernelSetup { line } => {
                let line = hailer_render::clean_all(&line).unwrap_or(line);
                let view = setup.get_or_insert_with(|| JobView::on_stderr(false));
                if let Some(summary) = view.show(&line) {
                    eprintln!("{summary}");
                    setup = None;
                }
            }
            SessionEvent::Stopped { reason } => return Wait::Stopped(reason),
            _ => {}
        }
    }
}

/// The wait's verdict from the session as it is when attaching, if it already has one.
fn judge(session: &SessionInfo) -> Option<Wait> {
    match session.kernel {
        KernelStatus::Idle | KernelStatus::Running => Some(Wait::Ready),
        KernelStatus::Failed | KernelStatus::Stopped => Some(Wait::Failed {
            message: session
                .kernel_error
                .clone()
                .unwrap_or_else(|| "the kernel is not running".to_owned()),
            hint: session.kernel_hint.clone(),
        }),
        KernelStatus::Starting | KernelStatus::Restarting => None,
    }
}
