//! An incremental, bounded parser for `text/event-stream` bodies.
//!
//! Fed arbitrary bytes in arbitrary chunks, it yields events, and refuses (never panics) when a
//! single line or the whole stream grows past its limits.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, `message` when the event had none.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Which limit a stream broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseLimit {
    /// One line is longer than the line limit.
    Line(usize),
    /// The whole stream is longer than the total limit.
    Total(usize),
}

/// The parser state between chunks.
#[derive(Debug)]
pub struct SseParser {
    max_line: usize,
    max_total: usize,
    total: usize,
    line: Vec<u8>,
    /// The previous chunk ended in `\r`, so a leading `\n` belongs to that line break.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// Lines over the limit are left out (and counted) instead of ending the stream.
    skip_long_lines: bool,
    /// The line being read is over the limit: its bytes are counted, not kept.
    skipping: bool,
    skipped: usize,
}

impl SseParser {
    /// A parser refusing lines over `max_line` bytes and streams over `max_total` bytes.
    pub fn new(max_line: usize, max_total: usize) -> Self {
        Self {
            max_line,
            max_total,
            total: 0,
            line: Vec::new(),
            after_cr: false,
            event: None,
            data: String::new(),
            has_data: false,
            skip_long_lines: false,
            skipping: false,
            skipped: 0,
        }
    }

    /// A parser that leaves out lines over `max_line` bytes, counting their bytes
    /// ([`Self::take_skipped`]), instead of refusing the stream; it keeps no more than
    /// `max_line` bytes of any line, and streams have no total limit.
    pub fn skipping_long_lines(max_line: usize) -> Self {
        Self {
            skip_long_lines: true,
            ..Self::new(max_line, usize::MAX)
        }
    }

    /// The bytes of lines left out since the last call.
    pub fn take_skipped(&mut self) -> usize {
        std::mem::take(&mut self.skipped)
    }

    /// Feeds the next chunk; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseLimit> {
        self.total = self.total.saturating_add(chunk.len());
        if self.total > self.max_total {
            return Err(SseLimit::Total(self.max_total));
        }
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(position) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.push_line_bytes(&rest[..position])?;
            let ended_with_cr = rest[position] == b'\r';
            rest = &rest[position + 1..];
            if ended_with_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
            let line = std::mem::take(&mut self.line);
            if std::mem::take(&mut self.skipping) {
                continue;
            }
            if let Some(event) = self.process_line(&line) {
                events.push(event);
            }
        }
        self.push_line_bytes(rest)?;
        Ok(events)
    }

    /// Ends the stream: a last event that lacked its blank line is still dispatched.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if std::mem::take(&mut self.skipping) {
            self.line.clear();
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.process_line(&line) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn push_line_bytes(&mut self, bytes: &[u8]) -> Result<(), SseLimit> {
        if self.skipping {
            self.skipped = self.skipped.saturating_add(bytes.len());
            return Ok(());
        }
        if self.line.len().saturating_add(bytes.len()) > self.max_line {
            if !self.skip_long_lines {
                return Err(SseLimit::Line(self.max_line));
            }
            self.skipping = true;
            self.skipped = self
                .skipped
                .saturating_add(self.line.len())
                .saturating_add(bytes.len());
            self.line.clear();
            return Ok(());
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn process_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(b":") {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event: event
                .filter(|name| !name.is_empty())
                .unwrap_or_else(|| "message".to_owned()),
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use proptest::prelude::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new(1 << 20, 1 << 24);
        let mut events = Vec::new();
        for chunk in chunks {
            events.extend(parser.feed(chunk).unwrap());
        }
        events.extend(parser.finish());
        events
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.to_owned(),
            data: data.to_owned(),
        }
    }

    #[test]
    fn a_line_over_the_limit_is_left_out_and_counted_and_the_stream_goes_on() {
        let mut parser = SseParser::skipping_long_lines(16);
        let long = format!("data: {}\n\n", "x".repeat(100));
        let mut events = Vec::new();
        // The long line arrives in pieces, between two events that fit.
        for chunk in [
            b"event: a\ndata: 1\n\nevent: b\n".as_slice(),
            &long.as_bytes()[..40],
            &long.as_bytes()[40..],
            b"event: c\ndata: 3\n\n",
        ] {
            events.extend(parser.feed(chunk).unwrap());
        }
        events.extend(parser.finish());
        assert_eq!(events, vec![ev("a", "1"), ev("c", "3")]);
        assert_eq!(parser.take_skipped(), 106);
        assert_eq!(parser.take_skipped(), 0);
        // The refusing parser still refuses.
        let mut strict = SseParser::new(16, 1 << 20);
        assert_eq!(strict.feed(long.as_bytes()), Err(SseLimit::Line(16)));
    }

    #[test]
    fn parses_marimo_execute_events() {
        let body = b"event: stdout\ndata: {\"data\": \"hi\\n\"}\n\nevent: done\ndata: {\"success\": true}\n\n";
        assert_eq!(
            parse_all(&[body]),
            vec![
                ev("stdout", "{\"data\": \"hi\\n\"}"),
                ev("done", "{\"success\": true}")
            ]
        );
    }

    #[test]
    fn handles_crlf_cr_comments_multi_data_and_split_chunks() {
        let events = parse_all(&[
            b": keep-alive\r",
            b"\ndata: a\r\ndata:b\rdata:  c\n",
            b"\r",
            b"\n",
            b"event:x\nid: 1\nretry: 5\nbogus\n\n",
        ]);
        assert_eq!(events, vec![ev("message", "a\nb\n c")]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched_and_a_trailing_one_is() {
        assert_eq!(
            parse_all(&[b"event: lonely\n\nevent: done\ndata: {}"]),
            vec![ev("done", "{}")]
        );
    }

    #[test]
    fn a_long_line_is_refused_even_across_chunks() {
        let mut parser = SseParser::new(10, 1000);
        parser.feed(b"data: 1234").unwrap();
        assert_eq!(parser.feed(b"5678"), Err(SseLimit::Line(10)));
    }

    #[test]
    fn the_total_limit_is_enforced() {
        let mut parser = SseParser::new(1000, 20);
        parser.feed(b"data: x\n\n").unwrap();
        assert_eq!(
            parser.feed(b"data: yyyyyyyyyy\n\n"),
            Err(SseLimit::Total(20))
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let events = parse_all(&[b"data: \xff\xfe ok\n\n"]);
        assert_eq!(events.len(), 1);
        assert!(events[0].data.ends_with(" ok"));
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(
            chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..32),
        ) {
            let mut parser = SseParser::new(100, 1500);
            for chunk in &chunks {
                if parser.feed(chunk).is_err() {
                    break;
                }
            }
            let _ = parser.finish();
        }

        #[test]
        fn chunking_does_not_change_the_events(
            body in "((event: [a-z]{1,6}\n)?(data: [ -~]{0,12}\n){1,3}\n|: c\n|\r\n){0,8}",
            cut in 0usize..200,
        ) {
            let bytes = body.as_bytes();
            let cut = cut.min(bytes.len());
            let whole = parse_all(&[bytes]);
            let split = parse_all(&[&bytes[..cut], &bytes[cut..]]);
            prop_assert_eq!(whole, split);
        }
    }
}
