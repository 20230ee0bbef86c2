//! One console stream of a run (standard output or error) as the client keeps it: whole up to a
//! cap, then its beginning, a line saying how much was left out, and its latest part. A run that
//! prints without end costs the client a bounded amount of memory, and what it printed last (an
//! error at the end, or the line a caller waits for) is still there.

/// What the client keeps of one stream of a run by default: 16 MiB.
pub(crate) const KEPT_CONSOLE_BYTES: usize = 16 * 1024 * 1024;

/// The latest part of a stream kept once it passed its cap: 64 KiB.
const TAIL_BYTES: usize = 64 * 1024;

/// A console stream kept within `cap` bytes.
#[derive(Debug, Clone)]
pub(crate) struct ConsoleText {
    head: String,
    /// The latest text after the head filled, at most [`TAIL_BYTES`] (plus one pushed piece).
    tail: String,
    /// Bytes that passed between the head and the tail and were not kept.
    dropped: usize,
    head_cap: usize,
}

impl ConsoleText {
    /// An empty stream that keeps at most `cap` bytes of text (with the note, a few more).
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            head: String::new(),
            tail: String::new(),
            dropped: 0,
            head_cap: cap.saturating_sub(TAIL_BYTES).max(1),
        }
    }

    /// Adds `text` at the end.
    pub(crate) fn push(&mut self, text: &str) {
        if self.dropped == 0 && self.tail.is_empty() {
            let room = self.head_cap - self.head.len().min(self.head_cap);
            if text.len() <= room {
                self.head.push_str(text);
                return;
            }
            let split = floor_char_boundary(text, room);
            self.head.push_str(&text[..split]);
            self.push_tail(&text[split..]);
            return;
        }
        self.push_tail(text);
    }

    /// Counts `bytes` of the stream that never reached this text (an event too large to read)
    /// among those left out; later text goes after the note.
    pub(crate) fn left_out(&mut self, bytes: usize) {
        self.dropped = self.dropped.saturating_add(bytes);
    }

    fn push_tail(&mut self, text: &str) {
        self.tail.push_str(text);
        if self.tail.len() > TAIL_BYTES {
            let cut = floor_char_boundary(&self.tail, self.tail.len() - TAIL_BYTES);
            // Start the kept tail at a line when one begins near the cut.
            let cut = self.tail[cut..]
                .find('\n')
                .filter(|newline| *newline < 1024)
                .map_or(cut, |newline| cut + newline + 1);
            self.dropped += cut;
            self.tail.drain(..cut);
        }
    }

    /// Whether the stream's last complete line is `line`.
    pub(crate) fn ends_with_line(&self, line: &str) -> bool {
        let ending = format!("{line}\n");
        let total = self.head.len() + self.dropped + self.tail.len();
        if total == ending.len() {
            return self
                .last_bytes(total)
                .is_some_and(|last| last == ending.as_bytes());
        }
        // The line and the newline before it; text right after the note starts a line, as
        // the kept text shows it.
        match self.last_bytes(ending.len() + 1) {
            Some(last) => last[0] == b'\n' && &last[1..] == ending.as_bytes(),
            None => self.dropped > 0 && self.tail == ending,
        }
    }

    /// The stream's last `count` bytes, when they are all kept.
    fn last_bytes(&self, count: usize) -> Option<Vec<u8>> {
        let tail = self.tail.as_bytes();
        if count <= tail.len() {
            return Some(tail[tail.len() - count..].to_vec());
        }
        let from_head = count - tail.len();
        let head = self.head.as_bytes();
        if self.dropped > 0 || from_head > head.len() {
            return None;
        }
        let mut last = head[head.len() - from_head..].to_vec();
        last.extend_from_slice(tail);
        Some(last)
    }

    /// The text kept: all of it, or its beginning, a note of what was left out, and its end.
    pub(crate) fn into_text(self) -> String {
        if self.dropped == 0 {
            return self.head + &self.tail;
        }
        let mut text = self.head;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[... about {} of output left out here: the run printed more than is kept of one run ...]\n",
            human_bytes(self.dropped)
        ));
        text.push_str(&self.tail);
        text
    }
}

/// The largest char boundary of `text` at or below `index`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// `bytes` for people: `512 bytes`, `3.2 MB`.
fn human_bytes(bytes: usize) -> String {
    if bytes < 10_000 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} MB", bytes as f64 / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn text_under_the_cap_is_kept_whole() {
        let mut text = ConsoleText::new(KEPT_CONSOLE_BYTES);
        for piece in ["a", "bé\n", "", "c\n"] {
            text.push(piece);
        }
        assert!(text.ends_with_line("c"));
        assert_eq!(text.into_text(), "abé\nc\n");
    }

    #[test]
    fn a_stream_without_end_keeps_its_start_a_note_and_its_end() {
        let cap = 256 * 1024;
        let mut text = ConsoleText::new(cap);
        for n in 0..100_000 {
            text.push(&format!("line {n} é\n"));
        }
        assert!(text.ends_with_line("line 99999 é"));
        let kept = text.into_text();
        assert!(kept.len() < cap + 200, "{}", kept.len());
        assert!(kept.starts_with("line 0 é\nline 1 é\n"));
        assert!(kept.ends_with("line 99998 é\nline 99999 é\n"));
        assert!(kept.contains("of output left out here"), "no note");
        // The tail starts at a line.
        let after_note = kept.split("left out here").nth(1).unwrap();
        let first_tail_line = after_note.lines().nth(1).unwrap();
        assert!(first_tail_line.starts_with("line "), "{first_tail_line}");
    }

    #[test]
    fn one_huge_piece_is_cut_at_a_char_boundary() {
        let mut text = ConsoleText::new(128 * 1024);
        text.push(&"é".repeat(1_000_000));
        let kept = text.into_text();
        assert!(kept.len() < 128 * 1024 + 200);
        assert!(kept.contains("MB of output left out"));
    }

    #[test]
    fn output_that_never_arrived_is_said_between_what_did() {
        let mut text = ConsoleText::new(KEPT_CONSOLE_BYTES);
        text.push("first\n");
        text.left_out(20_000_000);
        text.push("last\n");
        assert!(text.ends_with_line("last"));
        assert_eq!(
            text.into_text(),
            "first\n[... about 20.0 MB of output left out here: the run printed more than is kept of one run ...]\nlast\n"
        );
    }

    #[test]
    fn the_end_line_counts_only_as_a_whole_last_line() {
        for (stdout, ends) in [
            ("end\n", true),
            ("rows\nend\n", true),
            ("rows\nend", false),
            ("rows\nthe end\n", false),
            ("end\nmore\n", false),
            ("", false),
            ("\n", false),
        ] {
            let mut text = ConsoleText::new(KEPT_CONSOLE_BYTES);
            text.push(stdout);
            assert_eq!(text.ends_with_line("end"), ends, "{stdout:?}");
        }
    }
}
