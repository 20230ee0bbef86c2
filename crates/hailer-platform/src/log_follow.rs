//! Following a log file as it grows, line by line: the one follower for the daemon's own log
//! (`hailer daemon logs --follow`) and an unsafe-local kernel's log (the kernel log route).
//!
//! The file is read from its start, its last `tail` lines go out, then it is polled for new bytes.
//! A file that shrinks (a new writer truncated it) is read again from its start; a file that is
//! removed ends the follow. Lines are split on `\n` (a trailing `\r` dropped), read as lossy
//! UTF-8, and a line longer than [`MAX_LINE_BYTES`] goes out in pieces.

use std::path::PathBuf;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _};
use tokio::sync::mpsc;

/// A line longer than this goes out in pieces (a runaway line must not grow without bound).
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024;
/// Lines buffered between the reader and a slow consumer.
const CHANNEL: usize = 512;

/// Splits bytes into lines; a partial line waits for its end.
#[derive(Debug, Default)]
pub struct LineSplitter {
    pending: Vec<u8>,
}

impl LineSplitter {
    /// The complete lines `bytes` finishes.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            lines.push(text(&line[..line.len() - 1]));
        }
        if self.pending.len() > MAX_LINE_BYTES {
            let line = std::mem::take(&mut self.pending);
            lines.push(text(&line));
        }
        lines
    }

    /// What is left when the input ends.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        (!rest.is_empty()).then(|| text(&rest))
    }
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line)
        .trim_end_matches('\r')
        .to_owned()
}

/// Follows the file at `path` from its last `tail` lines on, polling every `poll`, with each
/// line passed through `map` (to mask a secret, say), until the file is removed or the receiver
/// goes away. A file that cannot be opened gives a receiver that ends at once.
pub fn follow_file<F>(path: PathBuf, tail: usize, poll: Duration, map: F) -> mpsc::Receiver<String>
where
    F: Fn(String) -> String + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(CHANNEL);
    tokio::spawn(async move {
        let Ok(mut file) = tokio::fs::File::open(&path).await else {
            return;
        };
        let mut splitter = LineSplitter::default();
        let mut first = Vec::new();
        if file.read_to_end(&mut first).await.is_err() {
            return;
        }
        let lines = splitter.push(&first);
        let skip = lines.len().saturating_sub(tail);
        for line in lines.into_iter().skip(skip) {
            if sender.send(map(line)).await.is_err() {
                return;
            }
        }
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            tokio::select! {
                () = sender.closed() => return,
                () = tokio::time::sleep(poll) => {}
            }
            loop {
                match file.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => {
                        for line in splitter.push(&chunk[..read]) {
                            if sender.send(map(line)).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
            if !path.exists() {
                break;
            }
            // On Windows a removed file that is still open can linger as "delete pending": there,
            // but no longer openable. Unix takes the name away at once.
            #[cfg(windows)]
            if tokio::fs::File::open(&path).await.is_err() {
                break;
            }
            // The file was truncated (a new writer): start over from its start.
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
            let _ = sender.send(map(rest)).await;
        }
    });
    receiver
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::io::Write as _;

    #[test]
    fn lines_are_split_across_chunks() {
        let mut splitter = LineSplitter::default();
        assert!(splitter.push(b"first line wi").is_empty());
        assert_eq!(
            splitter.push(b"th an end\r\nsecond\n"),
            vec!["first line with an end", "second"]
        );
        assert_eq!(splitter.push(b"third, unfinished"), Vec::<String>::new());
        assert_eq!(splitter.finish().as_deref(), Some("third, unfinished"));
        assert_eq!(splitter.finish(), None);
    }

    #[test]
    fn a_runaway_line_goes_out_in_pieces() {
        let mut splitter = LineSplitter::default();
        let lines = splitter.push(&vec![b'x'; MAX_LINE_BYTES + 10]);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), MAX_LINE_BYTES + 10);
    }

    async fn next(lines: &mut mpsc::Receiver<String>) -> Option<String> {
        match tokio::time::timeout(Duration::from_secs(5), lines.recv()).await {
            Ok(line) => line,
            Err(_) => panic!("no line and no end within 5 s"),
        }
    }

    #[tokio::test]
    async fn follows_the_tail_then_new_lines_then_a_truncation_and_ends_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
        let mut lines = follow_file(path.clone(), 2, Duration::from_millis(10), |line| {
            line.replace("secret", "<s>")
        });
        assert_eq!(next(&mut lines).await.as_deref(), Some("two"));
        assert_eq!(next(&mut lines).await.as_deref(), Some("three"));
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"four has a secret\nfi").unwrap();
        assert_eq!(next(&mut lines).await.as_deref(), Some("four has a <s>"));
        file.write_all(b"ve\n").unwrap();
        assert_eq!(next(&mut lines).await.as_deref(), Some("five"));
        drop(file);
        std::fs::write(&path, "new\n").unwrap();
        assert_eq!(
            next(&mut lines).await.as_deref(),
            Some("new"),
            "after the truncation"
        );
        std::fs::remove_file(&path).unwrap();
        // Linux, macOS and Windows 10 and later take the name away at once, so the follower
        // ends. Wine 8 keeps a removed file until its last handle closes (the follower's own),
        // so under Wine the end is not checked, and the test says so in its output.
        #[cfg(windows)]
        let wine = crate::wine::version();
        #[cfg(not(windows))]
        let wine: Option<String> = None;
        if let Some(version) = wine {
            println!("under Wine {version}: the end of a removed, still open file not checked");
        } else {
            assert_eq!(next(&mut lines).await, None, "after the removal");
        }
    }

    #[tokio::test]
    async fn a_missing_file_ends_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut lines = follow_file(
            dir.path().join("none.log"),
            10,
            Duration::from_millis(10),
            |l| l,
        );
        assert_eq!(next(&mut lines).await, None);
    }
}
