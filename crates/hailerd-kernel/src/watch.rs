//! Watching a running kernel from outside: noticing that it ended when nobody asked it to (and
//! saying why), and following its log with the token masked.

use std::path::PathBuf;
use std::time::Duration;

use futures_util::StreamExt as _;
use hailer_docker::Ended;
use hailer_marimo::mask_token;
use hailer_platform::LineSplitter;
use hailer_protocol::{KernelExit, KernelExitCause};
use secrecy::SecretString;
use tokio::sync::mpsc;

/// How often an unsafe-local kernel's log file is read for new lines.
const LOG_POLL: Duration = Duration::from_millis(200);
/// Lines buffered between the reader and a slow client.
const LOG_CHANNEL: usize = 512;

/// How an unsafe-local marimo server ended.
pub(crate) fn local_exit(status: std::process::ExitStatus) -> KernelExit {
    use hailer_platform::{Ending, SIGKILL, exit_ending as ending, signal_name};
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
pub(crate) fn docker_exit(ended: &Ended, memory: &str) -> KernelExit {
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

/// Follows an unsafe-local kernel's log file from its last `tail` lines on, with the token
/// masked, until the file is removed (the kernel stopped) or the receiver goes away.
pub(crate) fn follow_file(
    path: PathBuf,
    token: SecretString,
    tail: usize,
) -> mpsc::Receiver<String> {
    hailer_platform::follow_file(path, tail, LOG_POLL, move |line| mask_token(&line, &token))
}

/// Follows a docker kernel's output until the container stops or the receiver goes away.
pub(crate) fn follow_stream<S>(stream: S, token: SecretString) -> mpsc::Receiver<String>
where
    S: futures_util::Stream<Item = hailer_docker::Result<bytes::Bytes>> + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(LOG_CHANNEL);
    tokio::spawn(async move {
        let mut stream = std::pin::pin!(stream);
        let mut splitter = LineSplitter::default();
        loop {
            let next = tokio::select! {
                () = sender.closed() => return,
                next = stream.next() => next,
            };
            let Some(Ok(bytes)) = next else { break };
            for line in splitter.push(&bytes) {
                if sender.send(mask_token(&line, &token)).await.is_err() {
                    return;
                }
            }
        }
        if let Some(rest) = splitter.finish() {
            let _ = sender.send(mask_token(&rest, &token)).await;
        }
    });
    receiver
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[tokio::test]
    async fn a_docker_log_is_split_into_lines_with_the_token_masked_even_when_split() {
        let token = SecretString::from("s3cr3t-token-value".to_owned());
        let chunks = [
            "first line with s3cr3t-to",
            "ken-value inside\r\nsecond\n",
            "third",
        ]
        .map(|chunk| Ok(bytes::Bytes::from(chunk)));
        let mut lines = follow_stream(futures_util::stream::iter(chunks), token);
        let mut all = Vec::new();
        while let Some(line) = lines.recv().await {
            all.push(line);
        }
        assert_eq!(all, ["first line with <token> inside", "second", "third"]);
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
