//! BuildKit's status stream for one build: the steps as they start and the output lines of
//! each, read over a connection of its own to the engine's `/grpc` endpoint (the solve's
//! connection gives nothing back until the build ends).

use std::collections::{HashMap, HashSet, VecDeque};
use std::pin::Pin;
use std::task::{Context, Poll};

use bollard::moby::buildkit::v1::control_client::ControlClient;
use bollard::moby::buildkit::v1::{StatusRequest, StatusResponse};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

use super::counts::StepCount;
use super::redact;
use super::{Progress, Report};
use crate::engine::{Endpoint, Transport};

/// How many of the last output lines a failed build shows.
pub(super) const TAIL_LINES: usize = 20;
/// The longest answer to the upgrade request read.
const MAX_UPGRADE_ANSWER: usize = 16 * 1024;

/// A byte stream to the engine.
trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// The status of the build `build_ref` as a stream, or why there is none (an engine reached
/// through a named pipe, a connection that failed): the build then goes on without it.
pub(super) async fn open(
    endpoint: &Endpoint,
    build_ref: &str,
) -> Result<tonic::Streaming<StatusResponse>, String> {
    let io = upgraded(endpoint.transport()).await?;
    let connector = OneConnection(std::sync::Mutex::new(Some(Box::new(io) as Box<dyn Io>)));
    let channel = tonic::transport::Endpoint::from_static("http://engine")
        .connect_with_connector(connector)
        .await
        .map_err(|error| error.to_string())?;
    let mut client = ControlClient::new(channel);
    let mut last = String::new();
    // The engine knows the build once the solve has started; ask again until it does.
    for _ in 0..20 {
        match client
            .status(StatusRequest {
                r#ref: build_ref.to_owned(),
            })
            .await
        {
            Ok(stream) => return Ok(stream.into_inner()),
            Err(status) => last = status.message().to_owned(),
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    Err(last)
}

/// A connection to the engine's `/grpc` endpoint, upgraded to HTTP/2.
async fn upgraded(transport: Transport) -> Result<Box<dyn Io>, String> {
    let failed = |error: std::io::Error| format!("cannot reach the engine: {error}");
    let mut io: Box<dyn Io> = match transport {
        #[cfg(unix)]
        Transport::Unix(path) => Box::new(
            tokio::net::UnixStream::connect(&path)
                .await
                .map_err(failed)?,
        ),
        Transport::Tcp(address) => Box::new(
            tokio::net::TcpStream::connect(address.as_str())
                .await
                .map_err(failed)?,
        ),
        _ => return Err("the build's steps are read over a Unix socket or TCP only".to_owned()),
    };
    io.write_all(
        b"POST /grpc HTTP/1.1\r\nHost: docker\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\
          Content-Length: 0\r\n\r\n",
    )
    .await
    .map_err(failed)?;
    // Byte by byte, so nothing after the answer's head (HTTP/2 from the engine) is consumed.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > MAX_UPGRADE_ANSWER {
            return Err("the engine's answer to the upgrade is too long".to_owned());
        }
        head.push(io.read_u8().await.map_err(failed)?);
    }
    let head = String::from_utf8_lossy(&head);
    let status_line = head.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) != Some("101") {
        return Err(format!("the engine answered {status_line}"));
    }
    Ok(io)
}

/// Hands tonic the one connection made above.
struct OneConnection(std::sync::Mutex<Option<Box<dyn Io>>>);

impl tower::Service<tonic::transport::Uri> for OneConnection {
    type Response = hyper_util::rt::TokioIo<Box<dyn Io>>;
    type Error = std::io::Error;
    type Future =
        Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _uri: tonic::transport::Uri) -> Self::Future {
        let io = self.0.lock().ok().and_then(|mut io| io.take());
        Box::pin(async move {
            io.map(hyper_util::rt::TokioIo::new).ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the engine's build status connection is closed",
                )
            })
        })
    }
}

/// Turns status messages into progress: each step once when it starts (or is found in the
/// cache), and each whole output line, with credentials in URLs masked.
#[derive(Default)]
pub(super) struct Lines {
    started: HashSet<String>,
    /// Output not yet ended by a newline, per step.
    partial: HashMap<String, String>,
    tail: VecDeque<String>,
    steps: StepCount,
}

impl Lines {
    /// Reports what `status` adds.
    pub(super) fn observe(&mut self, status: &StatusResponse, progress: Progress<'_>) {
        for vertex in &status.vertexes {
            let begun = vertex.started.is_some() || vertex.cached;
            if begun && self.started.insert(vertex.digest.clone()) {
                let line = if vertex.cached {
                    format!("CACHED {}", vertex.name)
                } else {
                    vertex.name.clone()
                };
                // A count first: the output line that follows carries it.
                if self.steps.observe(&vertex.name) {
                    let (done, total) = self.steps.counts();
                    progress(Report::Count {
                        done,
                        total: Some(total),
                    });
                }
                self.emit(&line, progress);
            }
            if !vertex.error.is_empty() && !vertex.error.ends_with("context canceled") {
                self.flush(&vertex.digest, progress);
            }
        }
        for log in &status.logs {
            let text = String::from_utf8_lossy(&log.msg);
            let buffer = self.partial.entry(log.vertex.clone()).or_default();
            buffer.push_str(&text);
            let Some(end) = buffer.rfind('\n') else {
                continue;
            };
            let rest = buffer.split_off(end + 1);
            let whole = std::mem::replace(buffer, rest);
            for line in whole.lines() {
                self.emit(line, progress);
            }
        }
    }

    /// Reports every line still waiting for its newline.
    pub(super) fn finish(&mut self, progress: Progress<'_>) {
        let vertexes: Vec<String> = self.partial.keys().cloned().collect();
        for vertex in vertexes {
            self.flush(&vertex, progress);
        }
    }

    /// The last output lines, newline-separated.
    pub(super) fn tail(&self) -> String {
        Vec::from(self.tail.clone()).join("\n")
    }

    fn flush(&mut self, vertex: &str, progress: Progress<'_>) {
        if let Some(rest) = self.partial.remove(vertex) {
            for line in rest.lines() {
                self.emit(line, progress);
            }
        }
    }

    fn emit(&mut self, line: &str, progress: Progress<'_>) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            return;
        }
        let line = redact::mask_userinfo(line);
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line.clone());
        progress(Report::Output(&line));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use bollard::moby::buildkit::v1::{Vertex, VertexLog};

    use super::*;

    #[test]
    fn steps_are_said_once_and_output_lines_whole_with_credentials_masked() {
        let step = |digest: &str, name: &str, cached: bool| Vertex {
            digest: digest.to_owned(),
            name: name.to_owned(),
            cached,
            started: (!cached).then(Default::default),
            ..Default::default()
        };
        let log = |text: &str| VertexLog {
            vertex: "b".to_owned(),
            msg: text.as_bytes().to_vec(),
            ..Default::default()
        };
        let lines = std::sync::Mutex::new(Vec::new());
        let progress = |report: Report<'_>| {
            if let Some(text) = report.text() {
                lines.lock().unwrap().push(text.to_owned());
            }
        };
        let mut seen = Lines::default();
        let first = StatusResponse {
            vertexes: vec![
                step("a", "[build 1/4] FROM base", true),
                step("b", "[build 4/4] RUN pip install", false),
            ],
            logs: vec![log(
                "Looking in indexes: https://ana:pw@mirror/simple\nColl",
            )],
            ..Default::default()
        };
        seen.observe(&first, &progress);
        let second = StatusResponse {
            vertexes: vec![step("b", "[build 4/4] RUN pip install", false)],
            logs: vec![log("ecting marimo\nlast")],
            ..Default::default()
        };
        seen.observe(&second, &progress);
        seen.finish(&progress);
        assert_eq!(
            *lines.lock().unwrap(),
            [
                "CACHED [build 1/4] FROM base",
                "[build 4/4] RUN pip install",
                "Looking in indexes: https://****@mirror/simple",
                "Collecting marimo",
                "last",
            ]
        );
        assert!(seen.tail().ends_with("Collecting marimo\nlast"));
    }
}
