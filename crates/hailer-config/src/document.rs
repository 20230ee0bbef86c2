//! Reading `hailer.toml`: bytes to text to a TOML tree that remembers where each value was.

use std::ops::Range;

use toml::Spanned;
use toml::de::DeTable;

use crate::problem::{Origin, Problem};

/// Configuration files larger than this are refused (a real one is a few kilobytes).
pub const MAX_CONFIG_BYTES: usize = 1024 * 1024;
/// Values quoted in messages are cut to this many characters.
const MAX_QUOTED_CHARS: usize = 60;

/// A parsed configuration file.
pub(crate) struct Document<'s> {
    pub source: &'s str,
    /// The file as messages name it (relative to the workspace when inside it).
    pub label: String,
    pub root: Spanned<DeTable<'s>>,
}

impl<'s> Document<'s> {
    /// Decodes and parses a file's bytes; a problem names the file, the line and the cause.
    pub(crate) fn parse(bytes: &'s [u8], label: &str) -> Result<Self, Box<Problem>> {
        let source = decode(bytes, label)?;
        let root = DeTable::parse(source).map_err(|error| {
            let line = error.span().map(|span| line_of(source, span.start));
            let cause = error.message().trim().replace('\n', "; ");
            Box::new(Problem::fatal(
                file_origin(label, line),
                format!("this is not valid TOML: {cause}"),
                "Fix the line (strings need quotes, each key appears once per table); \
                 `hailer init --force` writes a fresh, valid hailer.toml.",
            ))
        })?;
        Ok(Self {
            source,
            label: label.to_owned(),
            root,
        })
    }

    /// No file: every setting takes its default.
    pub(crate) fn empty() -> Document<'static> {
        Document {
            source: "",
            label: String::new(),
            root: Spanned::new(0..0, DeTable::new()),
        }
    }

    /// Where a span is, for a problem.
    pub(crate) fn origin(&self, span: &Range<usize>) -> Origin {
        file_origin(&self.label, Some(line_of(self.source, span.start)))
    }

    /// The text of a span as written, on one line and cut short if long.
    pub(crate) fn written(&self, span: &Range<usize>) -> String {
        let text = self.source.get(span.clone()).unwrap_or_default();
        quote_written(text)
    }
}

/// Squeezes whitespace and cuts long text, so a value fits in a one-line message.
pub(crate) fn quote_written(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let clean: String = flat
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if clean.chars().count() > MAX_QUOTED_CHARS {
        let cut: String = clean.chars().take(MAX_QUOTED_CHARS).collect();
        format!("{cut}…")
    } else {
        clean
    }
}

pub(crate) fn file_origin(label: &str, line: Option<usize>) -> Origin {
    Origin::File {
        path: label.to_owned(),
        line,
    }
}

/// Text from bytes: a UTF-8 byte-order mark is dropped; anything else that is not UTF-8 is a
/// problem naming the offset of the first bad byte.
fn decode<'s>(bytes: &'s [u8], label: &str) -> Result<&'s str, Box<Problem>> {
    if bytes.len() > MAX_CONFIG_BYTES {
        return Err(Box::new(Problem::fatal(
            file_origin(label, None),
            format!(
                "the file is {} bytes long, more than the {MAX_CONFIG_BYTES} a configuration may have",
                bytes.len()
            ),
            "Point --config or HAILER_CONFIG at the right file, or shorten this one.",
        )));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|error| {
        let offset = error.valid_up_to();
        let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1;
        let bad = bytes.get(offset).copied().unwrap_or_default();
        Box::new(Problem::fatal(
            file_origin(label, Some(line)),
            format!("the file is not UTF-8 text: byte {offset} (0x{bad:02x}) is not valid UTF-8"),
            "Save hailer.toml as UTF-8 (most editors offer it under \"Save with encoding\").",
        ))
    })
}

/// 1-based line of a byte offset.
pub(crate) fn line_of(source: &str, offset: usize) -> usize {
    let end = offset.min(source.len());
    source.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bad_bytes_name_their_offset_and_line() {
        let problem = Document::parse(b"a = 1\nb = \"\xff\"\n", "hailer.toml")
            .err()
            .unwrap();
        assert!(problem.message.contains("line 2"), "{}", problem.message);
        assert!(
            problem.message.contains("byte 11 (0xff)"),
            "{}",
            problem.message
        );
    }

    #[test]
    fn invalid_toml_names_the_line() {
        let problem = Document::parse(b"[model]\nname = \"x\"\nname = \"y\"\n", "h.toml")
            .err()
            .unwrap();
        assert!(
            problem.message.starts_with("h.toml, line 3:"),
            "{}",
            problem.message
        );
        let problem = Document::parse(b"[kernel\n", "h.toml").err().unwrap();
        assert!(problem.message.contains("line 1"), "{}", problem.message);
    }

    #[test]
    fn quotes_are_flattened_and_cut() {
        assert_eq!(quote_written("\"a\n   b\""), "\"a b\"");
        assert_eq!(
            quote_written(&"x".repeat(100)).chars().count(),
            MAX_QUOTED_CHARS + 1
        );
    }

    #[test]
    fn byte_order_mark_is_accepted() {
        assert!(Document::parse(b"\xEF\xBB\xBFa = 1\n", "h.toml").is_ok());
    }
}
