//! Running code in a notebook's kernel (marimo's scratchpad), with deadlines and recovery.

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use reqwest::header::ACCEPT;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::OwnedMutexGuard;

use super::MarimoClient;
use super::console_text::{ConsoleText, KEPT_CONSOLE_BYTES};
use super::http::{Deadline, SESSION_HEADER, has_content_type, status_error};
use super::notebook_state::NotebookState;
use super::sessions::{KernelState, too_large};
use crate::error::{Error, Result};
use crate::sse::SseParser;

/// Which console stream a piece of output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// Standard output (marimo's `stdout` event).
    Stdout,
    /// Standard error (marimo's `stderr` event), where tracebacks go.
    Stderr,
}

/// A piece of console output, handed over as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecChunk<'a> {
    /// Which stream the text was written to.
    pub kind: StreamKind,
    /// The text of one event as marimo sent it; not necessarily a whole line.
    pub text: &'a str,
}

/// The value of the code's last expression (marimo renders it, usually as HTML).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ExecOutput {
    /// The output's MIME type as marimo sent it, e.g. `text/html` or `text/plain`.
    #[serde(default)]
    pub mimetype: String,
    /// The rendered value in that type; even a number comes as HTML
    /// (`<pre class='text-xs'>42</pre>`). Never empty in an [`ExecOutcome`].
    #[serde(default)]
    pub data: String,
}

/// What a finished run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecOutcome {
    /// Everything written to standard output, the events joined in the order they arrived
    /// (output of cells the code ran through code mode included); past
    /// `KEPT_CONSOLE_BYTES`, its beginning, a line saying how much was left out, and
    /// its end.
    pub stdout: String,
    /// Everything written to standard error, joined the same way; order relative to `stdout`
    /// is not kept, since marimo does not keep it.
    pub stderr: String,
    /// False when the code (or a cell it ran) raised.
    pub success: bool,
    /// The value of the code's last expression; `None` when there was none (an empty value
    /// counts as none), and always for [`MarimoClient::execute_until_line`].
    pub output: Option<ExecOutput>,
    /// The session the code ran in.
    pub session_id: String,
    /// The kernel was replaced since the previous run (after a crash or a stall), so variables
    /// from earlier runs are gone.
    pub fresh_session: bool,
}

#[derive(Debug, Deserialize)]
struct ConsoleEvent {
    data: String,
}

#[derive(Debug, Deserialize)]
struct DoneEvent {
    #[serde(default)]
    success: bool,
    output: Option<ExecOutput>,
}

/// Why a run did not finish normally.
enum RunFailure {
    KernelStopped,
    DeadlinePassed,
    Error(Error),
}

impl MarimoClient {
    /// Runs `code` in the kernel serving `notebook` (opening a session if needed); the whole call
    /// ends within `budget`.
    pub async fn execute(
        &self,
        notebook: &Path,
        code: &str,
        budget: Duration,
    ) -> Result<ExecOutcome> {
        self.execute_streaming(notebook, code, budget, &mut |_| {})
            .await
    }

    /// [`Self::execute`] for code whose last act is printing `end_line` on a line of its own:
    /// the call answers as soon as that line arrives, instead of after marimo's pause before
    /// `done` (about 50 ms), and the rest of the reply is read in the background so the run is
    /// never cut short. The outcome counts as a success and carries no value.
    pub async fn execute_until_line(
        &self,
        notebook: &Path,
        code: &str,
        end_line: &str,
        budget: Duration,
    ) -> Result<ExecOutcome> {
        self.execute_inner(notebook, code, budget, Some(end_line), &mut |_| {})
            .await
    }

    /// [`Self::execute`], handing console output to `on_chunk` as it arrives.
    ///
    /// When the kernel dies or the deadline passes, the session is closed and a fresh one is
    /// opened in the background, and [`Error::KernelRestarted`] says so; the next call runs on
    /// the fresh session and reports `fresh_session`.
    pub async fn execute_streaming(
        &self,
        notebook: &Path,
        code: &str,
        budget: Duration,
        on_chunk: &mut (dyn FnMut(ExecChunk<'_>) + Send),
    ) -> Result<ExecOutcome> {
        self.execute_inner(notebook, code, budget, None, on_chunk)
            .await
    }

    async fn execute_inner(
        &self,
        notebook: &Path,
        code: &str,
        budget: Duration,
        end_line: Option<&str>,
        on_chunk: &mut (dyn FnMut(ExecChunk<'_>) + Send),
    ) -> Result<ExecOutcome> {
        let deadline = Deadline::after(budget);
        let mut retried_renamed_session = false;
        loop {
            let state = self.inner.notebooks.get(notebook);
            let (session_id, fresh) = deadline
                .run("opening the notebook's kernel", async {
                    let mut state = state.lock().await;
                    let handle = self.ensure_session_locked(notebook, &mut state).await?;
                    Ok::<_, Error>((handle.id, std::mem::take(&mut state.fresh_pending)))
                })
                .await??;

            let failure = match self
                .run_watched(&session_id, code, deadline, end_line, on_chunk)
                .await
            {
                Ok(mut outcome) => {
                    outcome.fresh_session = fresh;
                    return Ok(outcome);
                }
                Err(failure) => failure,
            };
            let timed_out = matches!(failure, RunFailure::DeadlinePassed);
            let reason = match failure {
                RunFailure::Error(error) => {
                    if is_unknown_session(&error) && !retried_renamed_session {
                        // A browser opened the notebook and renamed the session: look again.
                        retried_renamed_session = true;
                        continue;
                    }
                    return Err(error);
                }
                RunFailure::KernelStopped => "stopped running".to_owned(),
                RunFailure::DeadlinePassed => format!(
                    "did not finish the run within {:.1} s",
                    budget.as_secs_f64()
                ),
            };
            let guard = state.lock_owned().await;
            self.restart_in_background(notebook, session_id, guard);
            return Err(Error::KernelRestarted {
                path: notebook.to_owned(),
                reason,
                timed_out,
            });
        }
    }

    /// Runs the stream while watching the kernel's state and the deadline.
    async fn run_watched(
        &self,
        session_id: &str,
        code: &str,
        deadline: Deadline,
        end_line: Option<&str>,
        on_chunk: &mut (dyn FnMut(ExecChunk<'_>) + Send),
    ) -> Result<ExecOutcome, RunFailure> {
        tokio::select! {
            result = self.read_execute_stream(session_id, code, end_line, on_chunk) => {
                result.map_err(RunFailure::Error)
            }
            () = self.wait_for_stopped_kernel(session_id) => Err(RunFailure::KernelStopped),
            () = tokio::time::sleep_until(deadline.at) => Err(RunFailure::DeadlinePassed),
        }
    }

    /// Returns once marimo reports the session's kernel stopped (never, while it runs).
    async fn wait_for_stopped_kernel(&self, session_id: &str) {
        let mut ticker = tokio::time::interval(self.options().status_poll);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        loop {
            ticker.tick().await;
            if let Ok(KernelState::Stopped) = self.kernel_status_of(session_id).await {
                return;
            }
        }
    }

    /// Posts the code and reads the event stream until `done`, within the size caps.
    async fn read_execute_stream(
        &self,
        session_id: &str,
        code: &str,
        end_line: Option<&str>,
        on_chunk: &mut (dyn FnMut(ExecChunk<'_>) + Send),
    ) -> Result<ExecOutcome> {
        let what = "running code in the kernel";
        let http = &self.inner.http;
        let cap = self.options().max_reply_bytes;
        // The caller's deadline bounds this whole future; this one only shapes error texts.
        let unbounded = Deadline::after(Duration::from_secs(365 * 24 * 3600));
        let request = http
            .request(Method::POST, http.url("/api/kernel/execute"))
            .header(SESSION_HEADER, session_id)
            .header(ACCEPT, "text/event-stream")
            .json(&json!({ "code": code }));
        let mut response = http.send(request, what, unbounded).await?;
        if !response.status().is_success() {
            return Err(status_error(response, cap, what, unbounded).await);
        }
        if !has_content_type(&response, "text/event-stream") {
            return Err(match status_error(response, cap, what, unbounded).await {
                Error::Status { detail, .. } => Error::BadReply {
                    what: what.to_owned(),
                    detail: format!("expected an event stream, got: {detail}"),
                },
                other => other,
            });
        }

        let mut run = RunSoFar {
            stdout: ConsoleText::new(KEPT_CONSOLE_BYTES),
            stderr: ConsoleText::new(KEPT_CONSOLE_BYTES),
            success: false,
            output: None,
        };
        let outcome = |run: RunSoFar| ExecOutcome {
            stdout: run.stdout.into_text(),
            stderr: run.stderr.into_text(),
            success: run.success,
            output: run.output,
            session_id: session_id.to_owned(),
            fresh_session: false,
        };
        // No event is kept over the cap (one that is, marimo's console output of a run printing
        // without pause, is left out and said), and the stream as a whole has no limit: what is
        // kept of its console text is bounded (`ConsoleText`), and the caller's deadline ends a
        // run that never stops.
        let mut parser = SseParser::skipping_long_lines(cap);
        loop {
            let chunk = match response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    if let Some(event) = parser.finish()
                        && apply_event(&event.event, &event.data, &mut run, on_chunk)
                    {
                        return Ok(outcome(run));
                    }
                    return Err(Error::StreamCut);
                }
                Err(e) => return Err(Error::transport(what, &e)),
            };
            let events = parser
                .feed(&chunk)
                .map_err(|limit| too_large(what, limit))?;
            run.stdout.left_out(parser.take_skipped());
            for event in events {
                if apply_event(&event.event, &event.data, &mut run, on_chunk) {
                    return Ok(outcome(run));
                }
            }
            if let Some(end) = end_line
                && run.stdout.ends_with_line(end)
            {
                run.success = true;
                drain_in_background(response, parser);
                return Ok(outcome(run));
            }
        }
    }

    /// Closes the dead or stuck session and opens a fresh one, holding the notebook's lock so
    /// the next call waits for it.
    fn restart_in_background(
        &self,
        notebook: &Path,
        old_session: String,
        mut state: OwnedMutexGuard<NotebookState>,
    ) {
        let client = self.clone();
        let notebook = notebook.to_owned();
        state.fresh_pending = true;
        tokio::spawn(async move {
            if let Err(error) = client.shutdown_session(&old_session).await {
                tracing::warn!(%error, "closing the failed kernel session did not work");
            }
            if let Err(error) = client.ensure_session_locked(&notebook, &mut state).await {
                tracing::warn!(%error, "opening a fresh kernel session did not work; the next run tries again");
            }
            state.fresh_pending = true;
        });
    }
}

/// How long the rest of a reply answered early may take to arrive.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// Reads what is left of a reply until `done` (or its end, or a limit), so marimo finishes the
/// run instead of seeing the client leave.
fn drain_in_background(mut response: reqwest::Response, mut parser: SseParser) {
    tokio::spawn(async move {
        let drain = async {
            while let Ok(Some(chunk)) = response.chunk().await {
                let Ok(events) = parser.feed(&chunk) else {
                    return;
                };
                if events.iter().any(|event| event.event == "done") {
                    return;
                }
            }
        };
        if tokio::time::timeout(DRAIN_LIMIT, drain).await.is_err() {
            tracing::warn!("the rest of a kernel reply did not arrive in time");
        }
    });
}

/// Applies one event to the outcome; true when it was `done`.
/// A run's reply as read so far.
struct RunSoFar {
    stdout: ConsoleText,
    stderr: ConsoleText,
    success: bool,
    output: Option<ExecOutput>,
}

fn apply_event(
    name: &str,
    data: &str,
    outcome: &mut RunSoFar,
    on_chunk: &mut (dyn FnMut(ExecChunk<'_>) + Send),
) -> bool {
    match name {
        "stdout" | "stderr" => {
            let Ok(event) = serde_json::from_str::<ConsoleEvent>(data) else {
                return false;
            };
            let (kind, sink) = if name == "stdout" {
                (StreamKind::Stdout, &mut outcome.stdout)
            } else {
                (StreamKind::Stderr, &mut outcome.stderr)
            };
            // An error marimo rendered as HTML (a highlighted traceback) is its one line.
            let text = match kind {
                StreamKind::Stderr => super::html_error::plain_line(&event.data),
                StreamKind::Stdout => None,
            }
            .unwrap_or(event.data);
            sink.push(&text);
            on_chunk(ExecChunk { kind, text: &text });
            false
        }
        "done" => match serde_json::from_str::<DoneEvent>(data) {
            Ok(done) => {
                outcome.success = done.success;
                outcome.output = done.output.filter(|o| !o.data.is_empty());
                true
            }
            Err(_) => false,
        },
        _ => false,
    }
}

/// marimo's answer for a session id it no longer knows (renamed when a browser opened it).
fn is_unknown_session(error: &Error) -> bool {
    matches!(error, Error::Status { status: 500, detail, .. } if detail.starts_with("Invalid session id"))
}
