//! Reading a `text/event-stream` body as events with the shared bounded parser
//! ([`hailer_sse`]), with a deadline for each event, a cap on one line and a cap on the bytes
//! one reply may stream.

use std::collections::VecDeque;
use std::error::Error;
use std::pin::Pin;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use hailer_sse::{SseLimit, SseParser};

use hailer_sse::SseEvent;

use super::TransportError;

/// The longest line a reply's event stream may send: an event's `data:` line holds one delta,
/// or at most a whole finished response.
pub(super) const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// The most bytes one streamed reply may send before it is cut off.
pub(super) const MAX_REPLY_BYTES: usize = 64 * 1024 * 1024;

type ByteStream = Pin<Box<dyn Stream<Item = Result<Vec<u8>, String>> + Send>>;

/// Events from a byte stream; waiting longer than the idle timeout for the next one is an error.
pub(crate) struct SseReader {
    bytes: ByteStream,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
    ended: bool,
    idle_timeout: Duration,
}

impl SseReader {
    /// Reads `bytes` with the default limits: 4 MiB for one line, 64 MiB for the whole reply.
    /// Waiting longer than `idle_timeout` for an event yields [`TransportError::IdleTimeout`].
    pub(crate) fn new<S, B, E>(bytes: S, idle_timeout: Duration) -> Self
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]> + Send + 'static,
        E: Error + Send + 'static,
    {
        Self::with_limits(bytes, idle_timeout, MAX_LINE_BYTES, MAX_REPLY_BYTES)
    }

    /// [`Self::new`] with other limits on one line and on the whole reply.
    pub(crate) fn with_limits<S, B, E>(
        bytes: S,
        idle_timeout: Duration,
        max_line: usize,
        max_reply: usize,
    ) -> Self
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]> + Send + 'static,
        E: Error + Send + 'static,
    {
        let bytes = bytes.map(|chunk| match chunk {
            Ok(bytes) => Ok(bytes.as_ref().to_vec()),
            Err(error) => Err(error_chain(&error)),
        });
        Self {
            bytes: Box::pin(bytes),
            parser: SseParser::new(max_line, max_reply),
            ready: VecDeque::new(),
            ended: false,
            idle_timeout,
        }
    }

    /// The next event; `None` when the body ended.
    pub(crate) async fn next(&mut self) -> Option<Result<SseEvent, TransportError>> {
        match tokio::time::timeout(self.idle_timeout, self.next_event()).await {
            Ok(next) => next,
            Err(_) => Some(Err(TransportError::IdleTimeout(self.idle_timeout))),
        }
    }

    async fn next_event(&mut self) -> Option<Result<SseEvent, TransportError>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(Ok(event));
            }
            if self.ended {
                return None;
            }
            match self.bytes.next().await {
                None => {
                    self.ended = true;
                    self.ready.extend(self.parser.finish());
                }
                Some(Err(reason)) => {
                    self.ended = true;
                    return Some(Err(TransportError::Body(reason)));
                }
                Some(Ok(chunk)) => match self.parser.feed(&chunk) {
                    Ok(events) => self.ready.extend(events),
                    Err(limit) => {
                        self.ended = true;
                        return Some(Err(TransportError::Sse(describe(limit))));
                    }
                },
            }
        }
    }
}

fn describe(limit: SseLimit) -> String {
    match limit {
        SseLimit::Line(max) => format!(
            "the event stream sent a line longer than {max} bytes, so the reply was cut off"
        ),
        SseLimit::Total(max) => {
            format!("the reply streamed more than {max} bytes, so it was cut off")
        }
    }
}

/// An error's message followed by its sources', e.g. "error decoding response body: connection
/// closed before message completed". Messages already contained in the previous one are skipped.
pub(crate) fn error_chain(error: &dyn Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let message = cause.to_string();
        if !text.contains(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    async fn read_all(
        chunks: Vec<&'static [u8]>,
        max_line: usize,
        max_reply: usize,
    ) -> Vec<Result<SseEvent, String>> {
        let stream = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
        let mut reader =
            SseReader::with_limits(stream, Duration::from_secs(5), max_line, max_reply);
        let mut out = Vec::new();
        while let Some(next) = reader.next().await {
            out.push(next.map_err(|error| error.to_string()));
        }
        out
    }

    /// Chunks, the line cap, the reply cap, and what the reader gives.
    type Case = (
        Vec<&'static [u8]>,
        usize,
        usize,
        Vec<Result<SseEvent, &'static str>>,
    );

    #[tokio::test]
    async fn limits_cut_a_reply_with_a_clear_error() {
        let event = |data: &str| SseEvent {
            event: "message".to_owned(),
            data: data.to_owned(),
        };
        let cases: Vec<Case> = vec![
            // Within the limits, split anywhere.
            (
                vec![b"data: a\n", b"\ndata: b\n\n"],
                16,
                64,
                vec![Ok(event("a")), Ok(event("b"))],
            ),
            // One line longer than the line cap, even across chunks.
            (
                vec![b"data: a\n\ndata: 0123", b"456789abcdef"],
                16,
                1024,
                vec![Ok(event("a")), Err("a line longer than 16 bytes")],
            ),
            // A line with no end at all.
            (
                vec![&[b'x'; 64]],
                16,
                1024,
                vec![Err("a line longer than 16 bytes")],
            ),
            // Many short events past the reply cap.
            (
                vec![b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n"],
                16,
                20,
                vec![
                    Ok(event("1")),
                    Ok(event("2")),
                    Err("streamed more than 20 bytes"),
                ],
            ),
        ];
        for (chunks, max_line, max_reply, expected) in cases {
            let got = read_all(chunks, max_line, max_reply).await;
            assert_eq!(got.len(), expected.len(), "{got:?}");
            for (got, expected) in got.iter().zip(&expected) {
                match (got, expected) {
                    (Ok(got), Ok(expected)) => assert_eq!(got, expected),
                    (Err(got), Err(expected)) => {
                        assert!(got.contains(expected), "{got}");
                        assert!(got.contains("cut off"), "{got}");
                    }
                    _ => panic!("{got:?} against {expected:?}"),
                }
            }
        }
    }
}
