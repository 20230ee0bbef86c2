//! Replies that stream a long job's progress as JSON lines (`application/x-ndjson`): one
//! [`KernelJobLine`] per line, progress first, `done` or `failed` last.
//!
//! The job runs inside the reply's body, so a client that goes away (Ctrl+C) drops it and
//! whatever it was doing with the engine. While it runs, the daemon counts a client, so it does
//! not exit for being idle in the middle of a build; when the daemon is asked to stop, the job
//! ends with a `failed` line.
//!
//! Every line also goes to the job's log file ([`JobLog`]), named on the last line.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use hailer_marimo::Report;
use hailer_protocol::{KernelJobLine, NDJSON};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::daemon_state::{ClientGuard, Daemon};
use hailerd_kernel::{JobLog, JobSteps};

/// Where a job sends its reports.
#[derive(Debug, Clone)]
pub(super) struct JobProgress {
    sender: UnboundedSender<KernelJobLine>,
    log: Arc<JobLog>,
    steps: Arc<Mutex<JobSteps>>,
}

impl JobProgress {
    /// Logs `report` and sends the line it makes.
    pub(super) fn report(&self, report: Report<'_>) {
        if let Some(text) = report.text() {
            tracing::debug!(line = text, "job progress");
        }
        self.log.record(report);
        let line = self
            .steps
            .lock()
            .ok()
            .and_then(|mut steps| steps.line(report));
        if let Some(line) = line {
            let _ = self.sender.send(line);
        }
    }

    /// A line for the user.
    pub(super) fn line(&self, line: &str) {
        self.report(Report::Note(line));
    }
}

/// A reply streaming what `job` reports, then the line it ends with, which names the job's
/// log (`kind` names the log file: `kernel-build`).
pub(super) fn job_response<F, Fut>(daemon: &Daemon, kind: &str, job: F) -> Response
where
    F: FnOnce(JobProgress) -> Fut,
    Fut: Future<Output = KernelJobLine> + Send + 'static,
{
    let (sender, lines) = unbounded_channel();
    let log = Arc::new(JobLog::create(kind));
    let progress = JobProgress {
        sender: sender.clone(),
        log: Arc::clone(&log),
        steps: Arc::default(),
    };
    let running = job(progress);
    let shutdown = daemon.shutdown.clone();
    let work = async move {
        // A daemon that is asked to stop does not wait for a build to finish.
        let mut last = tokio::select! {
            last = running => last,
            () = shutdown.cancelled() => KernelJobLine::failed(
                "hailerd is shutting down, so the job was stopped",
                Some("Run the command again.".to_owned()),
            ),
        };
        let named = log.path().map(|path| path.display().to_string());
        match &mut last {
            KernelJobLine::Done { log: path, .. } => {
                log.write("==> Done");
                *path = path.take().or(named);
            }
            KernelJobLine::Failed {
                message, log: path, ..
            } => {
                log.write(&format!("==> Failed: {message}"));
                *path = path.take().or(named);
            }
            KernelJobLine::Progress { .. } => {}
        }
        let _ = sender.send(last);
    };
    let stream = JobStream {
        work: Some(Box::pin(work)),
        lines,
        _client: daemon.client_connected(),
    };
    (
        [(CONTENT_TYPE, NDJSON), (CACHE_CONTROL, "no-store")],
        Body::from_stream(stream),
    )
        .into_response()
}

struct JobStream {
    work: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    lines: UnboundedReceiver<KernelJobLine>,
    _client: ClientGuard,
}

impl Stream for JobStream {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(work) = this.work.as_mut()
            && work.as_mut().poll(cx).is_ready()
        {
            // Dropping the finished job drops its senders, so the lines end after the last.
            this.work = None;
        }
        match this.lines.poll_recv(cx) {
            Poll::Ready(Some(line)) => {
                let mut bytes = serde_json::to_vec(&line).unwrap_or_default();
                bytes.push(b'\n');
                Poll::Ready(Some(Ok(Bytes::from(bytes))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}
