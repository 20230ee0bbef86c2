//! Watching a running kernel from outside: noticing that it ended when nobody asked it to (and
//! saying why), and following its log with the token masked.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt as _;
use hailer_docker::runtime::Ended;
use hailer_marimo::access_token::mask_token;
use hailer_protocol::{KernelExit, KernelExitCause};
use secrecy::SecretString;
use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _};
use tokio::sync::mpsc;

/// How often an unsafe-local kernel's log file is read for new lines.
const LOG_POLL: Duration = Duration::from_millis(200);
/// A line longer than this goes out in pieces (a runaway line must not grow without bound).
const MAX_LINE_BYTES: usize = 16 * 1024;
/// Lines buffered between the reader and a slow client.
const LOG_CHANNEL: usize = 512;

/// How an unsafe-local marimo server ended.
pub fn local_exit(status: std::process::ExitStatus) -> KernelExit {
    use hailer_platform::exit_status::{Ending, SIGKILL, ending, signal_name};
    if let Ending::Signal(signal) = ending(&status) {
        let name = signal_name(signal);
        let also = if signal == SIGKILL {
            " (the system's out-of-memory killer sends this signal too)"
        } else {
            ""
        };
        return KernelExit {
            cause: KernelExitCause::Killed,
            code: Some(128 + i64::from(signal)),
            message: format!("The kernel (marimo, as you) was ended from outside by {name}{also}."),
        };
    }
    let code = status.code().map(i64::from);
    KernelExit {
        cause: KernelExitCause::Exited,
        code,
        message: match code {
            Some(code) => format!("The kernel (marimo, as you) exited by itself with code {code}."),
            None => "The kernel (marimo, as you) exited by itself.".to_owned(),
        },
    }
}

/// How a docker kernel ended, in the user's words; `memory` is the configured limit.
pub fn docker_exit(ended: &Ended, memory: &str) -> KernelExit {
    let container = |role: &str| {
        if role == "kernel" {
            "The kernel container".to_owned()
        } else {
            format!("The kernel's {role} container")
        }
    };
    match ended {
        Ended::Removed { role } => KernelExit {
            cause: KernelExitCause::Removed,
            code: None,
            message: format!(
                "{} was removed from outside this session (docker rm, say), so the kernel is gone.",
                container(role)
            ),
        },
        Ended::OutOfMemory { role, code } => KernelExit {
            cause: KernelExitCause::OutOfMemory,
            code: Some(*code),
            message: format!(
                "{} ran out of memory (its limit is {memory}) and Docker stopped it. Raise memory \
                 under [kernel] in hailer.toml for the next session.",
                container(role)
            ),
        },
        Ended::Exited { role, code } => {
            let killed = if *code == 137 {
                " (137: it was killed, by docker kill or docker stop, say)"
            } else {
                ""
            };
            KernelExit {
                cause: KernelExitCause::Exited,
                code: Some(*code),
                message: format!("{} stopped with exit code {code}{killed}.", container(role)),
            }
        }
    }
}

/// Splits bytes into lines, masking the token in each; a partial line waits for its end.
#[derive(Debug)]
pub struct LineSplitter {
    pending: Vec<u8>,
    token: SecretString,
}

impl LineSplitter {
    pub fn new(token: SecretString) -> Self {
        Self {
            pending: Vec::new(),
            token,
        }
    }

    /// The complete lines `bytes` finishes, masked.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            lines.push(self.mask(&line[..line.len() - 1]));
        }
        if self.pending.len() > MAX_LINE_BYTES {
            let line = std::mem::take(&mut self.pending);
            lines.push(self.mask(&line));
        }
        lines
    }

    /// What is left when the log ends.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        (!rest.is_empty()).then(|| self.mask(&rest))
    }

    fn mask(&self, line: &[u8]) -> String {
        let text = String::from_utf8_lossy(line);
        mask_token(text.trim_end_matches('\r'), &self.token)
    }
}

/// Follows an unsafe-local kernel's log file from its last `tail` lines on, until the file is
/// removed (the kernel stopped) or the receiver goes away.
pub fn follow_file(path: PathBuf, token: SecretString, tail: usize) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel(LOG_CHANNEL);
    tokio::spawn(async move {
        let Ok(mut file) = tokio::fs::File::open(&path).await else {
            return;
        };
        let mut splitter = LineSplitter::new(token);
        let mut first = Vec::new();
        if file.read_to_end(&mut first).await.is_err() {
            return;
        }
        let lines = splitter.push(&first);
        let skip = lines.len().saturating_sub(tail);
        for line in lines.into_iter().skip(skip) {
            if sender.send(line).await.is_err() {
                return;
            }
        }
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            tokio::select! {
                () = sender.closed() => return,
                () = tokio::time::sleep(LOG_POLL) => {}
            }
            loop {
                match file.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        for line in splitter.push(&chunk[..read]) {
                            if sender.send(line).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
            if !path.exists() {
                break;
            }
            // The file was truncated (a new server writing it): start over from its start.
            if let (Ok(position), Ok(meta)) = (
                file.stream_position().await,
                tokio::fs::metadata(&path).await,
            ) && meta.len() < position
                && file.seek(std::io::SeekFrom::Start(0)).await.is_err()
            {
                break;
            }
        }
        if let Some(rest) = splitter.finish() {
            let _ = sender.send(rest).await;
        }
    });
    receiver
}

/// Follows a docker kernel's output until the container stops or the receiver goes away.
pub fn follow_stream<S>(stream: S, token: SecretString) -> mpsc::Receiver<String>
where
    S: futures_util::Stream<Item = hailer_docker::Result<bytes::Bytes>> + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(LOG_CHANNEL);
    tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        let mut splitter = LineSplitter::new(token);
        loop {
            let next = tokio::select! {
                () = sender.closed() => return,
                next = stream.next() => next,
            };
            let Some(Ok(bytes)) = next else { break };
            for line in splitter.push(&bytes) {
                if sender.send(line).await.is_err() {
                    return;
                }
            }
        }
        if let Some(rest) = splitter.finish() {
            let _ = sender.send(rest).await;
        }
    });
    receiver
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn lines_are_split_across_chunks_and_the_token_is_masked_even_when_split() {
        let token = SecretString::from("s3cr3t-token-value".to_owned());
        let mut splitter = LineSplitter::new(token);
        assert!(splitter.push(b"first line with s3cr3t-to").is_empty());
        assert_eq!(
            splitter.push(b"ken-value inside\r\nsecond\n"),
            vec!["first line with <token> inside", "second"]
        );
        assert_eq!(splitter.push(b"third, unfinished"), Vec::<String>::new());
        assert_eq!(splitter.finish().as_deref(), Some("third, unfinished"));
        assert_eq!(splitter.finish(), None);
    }

    #[test]
    fn a_runaway_line_goes_out_in_pieces() {
        let mut splitter = LineSplitter::new(SecretString::from("t".repeat(43)));
        let lines = splitter.push(&vec![b'x'; MAX_LINE_BYTES + 10]);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + 10);
    }

    #[cfg(unix)]
    #[test]
    fn exits_say_why_and_carry_the_code() {
        use std::os::unix::process::ExitStatusExt as _;
        let killed = local_exit(std::process::ExitStatus::from_raw(9));
        assert_eq!(killed.cause, KernelExitCause::Killed);
        assert_eq!(killed.code, Some(137));
        assert!(killed.message.contains("SIGKILL"), "{}", killed.message);
        let exited = local_exit(std::process::ExitStatus::from_raw(3 << 8));
        assert_eq!(exited.cause, KernelExitCause::Exited);
        assert_eq!(exited.client_exit_code(), 3);
        let removed = docker_exit(&Ended::Removed { role: "kernel" }, "4g");
        assert_eq!(removed.client_exit_code(), 1);
        assert!(removed.message.contains("removed from outside"));
        let oom = docker_exit(
            &Ended::OutOfMemory {
                role: "kernel",
                code: 137,
            },
            "512m",
        );
        assert!(oom.message.contains("512m"), "{}", oom.message);
        assert_eq!(oom.client_exit_code(), 137);
    }
}
