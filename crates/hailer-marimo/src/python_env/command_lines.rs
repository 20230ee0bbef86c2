//! Running a helper command while streaming its output lines and keeping the last few.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Command;
use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::progress::{PackageCount, Progress, Report};

/// How many trailing lines a failure report keeps.
pub(crate) const TAIL_LINES: usize = 25;

/// The end of a finished command.
pub(crate) struct Finished {
    pub status: ExitStatus,
    /// The last [`TAIL_LINES`] lines of stdout and stderr, interleaved as they arrived.
    pub tail: String,
}

/// Runs `command` to completion, handing each stdout/stderr line to `progress` as output, and
/// to `count` when given (its changes reported as counts).
pub(crate) async fn run_with_lines(
    mut command: Command,
    what: &str,
    progress: Progress<'_>,
    mut count: Option<&mut PackageCount>,
) -> Result<Finished> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|e| Error::io(format!("could not start {what}"), e))?;

    let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
    if let Some(stdout) = child.stdout.take() {
        tokio::spawn(forward_lines(stdout, sender.clone()));
    }
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(forward_lines(stderr, sender.clone()));
    }
    drop(sender);

    let mut tail = VecDeque::with_capacity(TAIL_LINES);
    while let Some(line) = receiver.recv().await {
        // A count first: the output line that follows carries it.
        if let Some(count) = count.as_deref_mut()
            && count.observe(&line)
        {
            progress(Report::Count {
                done: count.done,
                total: count.total,
            });
        }
        progress(Report::Output(&line));
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }
    let status = child
        .wait()
        .await
        .map_err(|e| Error::io(format!("could not wait for {what}"), e))?;
    Ok(Finished {
        status,
        tail: Vec::from(tail).join("\n"),
    })
}

async fn forward_lines(stream: impl AsyncRead + Unpin, sender: mpsc::UnboundedSender<String>) {
    let mut reader = BufReader::new(stream);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer);
                let line = line.trim_end_matches(['\r', '\n']);
                if !line.is_empty() && sender.send(line.to_owned()).is_err() {
                    break;
                }
            }
        }
    }
}
