//! Fitting decorated text to the terminal's width: wrapped at spaces, measured in terminal
//! columns (wide characters count two), a word broken only when it cannot fit on a line of its
//! own; or cut with an ellipsis.
//!
//! Hand-written rather than the `textwrap` crate: that wraps plain `&str`, so the decorations of
//! the runs would have to be mapped back onto its lines by byte offset, and it keeps what this
//! drops: leading spaces (a first line left empty), runs of spaces, tabs inside words (zero
//! columns wide, so lines overrun) and newlines as breaks.

use unicode_width::UnicodeWidthChar;

use crate::style::{Kind, Span};

/// Columns a character takes (controls, which never get here, take none).
pub(crate) fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Columns a string takes.
pub fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// A line being built: its runs and how wide it is.
#[derive(Default)]
struct Line {
    spans: Vec<Span>,
    width: usize,
}

impl Line {
    fn push(&mut self, kind: Kind, c: char) {
        self.width += char_width(c);
        match self.spans.last_mut() {
            Some((last, text)) if *last == kind => text.push(c),
            _ => self.spans.push((kind, c.to_string())),
        }
    }

    fn push_word(&mut self, word: &[(Kind, char)]) {
        for (kind, c) in word {
            self.push(*kind, *c);
        }
    }
}

/// `spans` wrapped into lines of at most `width` columns. Runs of spaces between words become
/// one space; a line never starts or ends with one.
pub(crate) fn wrap(spans: &[Span], width: usize) -> Vec<Vec<Span>> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = Line::default();
    let mut word: Vec<(Kind, char)> = Vec::new();
    let mut space_kind = Kind::Plain;
    let chars = spans
        .iter()
        .flat_map(|(kind, text)| text.chars().map(move |c| (*kind, c)))
        .chain([(Kind::Plain, ' ')]);
    for (kind, c) in chars {
        if !c.is_whitespace() {
            word.push((kind, c));
            continue;
        }
        if !word.is_empty() {
            place(&mut lines, &mut line, &word, width, space_kind);
            word.clear();
        }
        space_kind = kind;
    }
    if !line.spans.is_empty() || lines.is_empty() {
        lines.push(line.spans);
    }
    lines
}

/// Puts one word on the line, or on the next, or across several when it is wider than a line.
fn place(
    lines: &mut Vec<Vec<Span>>,
    line: &mut Line,
    word: &[(Kind, char)],
    width: usize,
    space_kind: Kind,
) {
    let word_width: usize = word.iter().map(|(_, c)| char_width(*c)).sum();
    if line.width > 0 && line.width + 1 + word_width <= width {
        line.push(space_kind, ' ');
        line.push_word(word);
        return;
    }
    if line.width > 0 {
        lines.push(std::mem::take(line).spans);
    }
    if word_width <= width {
        line.push_word(word);
        return;
    }
    for (kind, c) in word {
        if line.width > 0 && line.width + char_width(*c) > width {
            lines.push(std::mem::take(line).spans);
        }
        line.push(*kind, *c);
    }
}

/// `spans` cut to `width` columns, the last one an ellipsis when anything was cut.
pub(crate) fn truncate(spans: &[Span], width: usize) -> Vec<Span> {
    let total: usize = spans.iter().map(|(_, text)| text_width(text)).sum();
    if total <= width {
        return spans.to_vec();
    }
    let room = width.saturating_sub(1);
    let mut line = Line::default();
    'outer: for (kind, text) in spans {
        for c in text.chars() {
            if line.width + char_width(c) > room {
                break 'outer;
            }
            line.push(*kind, c);
        }
    }
    if width > 0 {
        line.push(Kind::Dim, '…');
    }
    line.spans
}

/// Plain `text` cut to `width` columns with an ellipsis.
pub(crate) fn truncate_text(text: &str, width: usize) -> String {
    truncate(&[(Kind::Plain, text.to_owned())], width)
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Vec<Span> {
        vec![(Kind::Plain, text.to_owned())]
    }

    fn texts(lines: Vec<Vec<Span>>) -> Vec<String> {
        lines
            .into_iter()
            .map(|line| line.into_iter().map(|(_, text)| text).collect())
            .collect()
    }

    #[test]
    fn wraps_at_spaces_and_breaks_only_words_that_cannot_fit() {
        assert_eq!(
            texts(wrap(&plain("the quick brown fox jumps"), 10)),
            vec!["the quick", "brown fox", "jumps"]
        );
        assert_eq!(
            texts(wrap(&plain("a abcdefghijklmnop b"), 6)),
            vec!["a", "abcdef", "ghijkl", "mnop b"]
        );
        assert_eq!(texts(wrap(&plain(""), 6)), vec![""]);
    }

    #[test]
    fn any_whitespace_separates_words_and_becomes_one_space() {
        assert_eq!(
            texts(wrap(&plain("  lead  two   spaces"), 10)),
            vec!["lead two", "spaces"]
        );
        assert_eq!(
            texts(wrap(&plain("tab\there x\ny"), 6)),
            vec!["tab", "here x", "y"]
        );
    }

    #[test]
    fn wide_characters_count_two_columns() {
        assert_eq!(text_width("表格"), 4);
        assert_eq!(
            texts(wrap(&plain("表格 表格 表格"), 9)),
            vec!["表格 表格", "表格"]
        );
        assert_eq!(truncate_text("表格表格", 5), "表格…");
    }

    #[test]
    fn decorations_survive_wrapping() {
        let spans = vec![
            (Kind::Plain, "one ".to_owned()),
            (Kind::Bold, "two three".to_owned()),
        ];
        assert_eq!(
            wrap(&spans, 8),
            vec![
                vec![
                    (Kind::Plain, "one ".to_owned()),
                    (Kind::Bold, "two".to_owned())
                ],
                vec![(Kind::Bold, "three".to_owned())],
            ]
        );
    }
}
