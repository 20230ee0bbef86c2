//! What a kernel start reports while it prepares its environment (a first unsafe-local start
//! creates the managed one): once a named step or an installer's line comes, every report is a
//! [`SessionEvent::KernelSetup`] line, the same lines a kernel job's reply carries, and goes to a
//! job log of its own; the start's end is the `done` or `failed` line naming that log. A start
//! with no such work (a ready environment, a container) sends its notes as notices, as before.

use std::sync::Mutex;

use hailer_marimo::Report;
use hailer_protocol::{KernelJobLine, NoticeLevel, SessionEvent};

use super::Session;
use hailerd_kernel::{JobLog, JobSteps};

/// The kind of log a session start's set-up writes (`session-start-<time>.log`).
const LOG_KIND: &str = "session-start";

/// The progress of one kernel start, shown to the session's clients.
#[derive(Debug)]
pub(super) struct KernelSetup<'a> {
    session: &'a Session,
    /// Made on the first step or output line.
    job: Mutex<Option<(JobLog, JobSteps)>>,
}

impl<'a> KernelSetup<'a> {
    pub(super) fn new(session: &'a Session) -> Self {
        Self {
            session,
            job: Mutex::new(None),
        }
    }

    /// Shows `report`: as a set-up line once set-up work began, else as a notice.
    pub(super) fn report(&self, report: Report<'_>) {
        let Ok(mut job) = self.job.lock() else {
            return;
        };
        if job.is_none() {
            match report {
                Report::Note(line) => {
                    self.session.notice(NoticeLevel::Info, line);
                    return;
                }
                Report::Count { .. } => return,
                Report::Step { .. } | Report::Output(_) => {
                    *job = Some((JobLog::create(LOG_KIND), JobSteps::default()));
                }
            }
        }
        let Some((log, steps)) = job.as_mut() else {
            return;
        };
        if let Some(text) = report.text() {
            tracing::debug!(line = text, "kernel set-up progress");
        }
        log.record(report);
        if let Some(line) = steps.line(report) {
            self.session
                .events
                .publish(SessionEvent::KernelSetup { line });
        }
    }

    /// Ends the set-up, if there was one: its last line names the log; a failure says what
    /// happened and what to do.
    pub(super) fn finish(&self, error: Option<&hailerd_kernel::KernelError>) {
        let Ok(mut job) = self.job.lock() else {
            return;
        };
        let Some((log, _)) = job.take() else {
            return;
        };
        let path = log.path().map(|path| path.display().to_string());
        let line = match error {
            None => {
                log.write("==> Done");
                KernelJobLine::Done {
                    image: None,
                    contract: hailer_kernel_bundle::contract(),
                    command: None,
                    log: path,
                }
            }
            Some(error) => {
                log.write(&format!("==> Failed: {error}"));
                KernelJobLine::Failed {
                    message: error.to_string(),
                    hint: error.hint(),
                    log: path,
                }
            }
        };
        self.session
            .events
            .publish(SessionEvent::KernelSetup { line });
    }
}
