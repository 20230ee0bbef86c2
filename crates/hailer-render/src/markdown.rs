//! Markdown for the terminal, rendered line by line as a streamed answer completes its lines.
//!
//! Only whole lines are rendered, so what is on the screen never has to be redrawn: a line is
//! committed when its newline arrives, the rest waits; a table's rows wait until the table ends,
//! since a column's width depends on every row. Block structure (fences, headings, lists,
//! quotes, rules, tables) is read from the start of each line; inline emphasis, code and links
//! go through `pulldown-cmark`. Prose is wrapped at word boundaries to the width; code is
//! highlighted and never wrapped. The text must have been through [`crate::sanitize::clean`].

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::highlight::Highlighter;
use crate::style::{Kind, Span, Style};
use crate::table::{self, Table};
use crate::wrap::{text_width, wrap};

/// An answer being streamed: text not yet ending in a newline waits in `pending`.
#[derive(Debug)]
pub struct MarkdownStream {
    style: Style,
    width: usize,
    pending: String,
    /// Inside a fenced block: how its lines are highlighted.
    fence: Option<Highlighter>,
    /// The raw lines of a table still arriving.
    table: Vec<String>,
}

impl MarkdownStream {
    /// A stream that renders Markdown at `width` columns as its text arrives.
    pub fn new(style: Style, width: usize) -> Self {
        Self {
            style,
            width: width.max(20),
            pending: String::new(),
            fence: None,
            table: Vec::new(),
        }
    }

    /// Adds a piece of the answer; returns the lines it completed, rendered.
    pub fn push(&mut self, delta: &str) -> Vec<String> {
        self.pending.push_str(delta);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            self.take_line(line.trim_end_matches(['\n', '\r']), &mut lines);
        }
        lines
    }

    /// The answer ended: renders what is left.
    pub fn finish(&mut self) -> Vec<String> {
        let rest = std::mem::take(&mut self.pending);
        let mut lines = Vec::new();
        if !rest.is_empty() {
            self.take_line(rest.trim_end_matches('\r'), &mut lines);
        }
        self.end_table(&mut lines);
        self.fence = None;
        lines
    }

    /// Whether part of a line is waiting for its end.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty() || !self.table.is_empty()
    }

    fn take_line(&mut self, line: &str, out: &mut Vec<String>) {
        if self.fence.is_none() && line.trim_start().starts_with('|') {
            self.table.push(line.to_owned());
            return;
        }
        self.end_table(out);
        self.render_line(line, out);
    }

    /// Lays out the table that just ended; rows that turn out not to be a table are prose.
    fn end_table(&mut self, out: &mut Vec<String>) {
        if self.table.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.table);
        let align = lines
            .get(1)
            .and_then(|line| table::delimiter(&table::cells(line)));
        let Some(align) = align else {
            for line in &lines {
                self.prose("", line.trim(), out);
            }
            return;
        };
        let plain = |line: &String| -> Vec<String> {
            table::cells(line)
                .iter()
                .map(|cell| inline(cell).into_iter().map(|(_, text)| text).collect())
                .collect()
        };
        let table = Table {
            header: plain(&lines[0]),
            align,
            rows: lines[2..].iter().map(plain).collect(),
        };
        out.extend(table.render(self.width, self.style));
    }

    fn render_line(&mut self, line: &str, out: &mut Vec<String>) {
        let style = self.style;
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.fence = match self.fence {
                Some(_) => None,
                None => Some(Highlighter::for_info(&trimmed[3..])),
            };
            out.push(style.dim(trimmed));
            return;
        }
        if let Some(highlighter) = &mut self.fence {
            out.push(format!("  {}", code_line(highlighter, line, style)));
            return;
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(text) = heading_text(trimmed) {
            let spans: Vec<Span> = inline(text)
                .into_iter()
                .map(|(kind, text)| {
                    (
                        if kind == Kind::Plain {
                            Kind::Bold
                        } else {
                            kind
                        },
                        text,
                    )
                })
                .collect();
            self.wrapped(&spans, "", "", out);
        } else if is_rule(trimmed) {
            let width = self.width.min(32);
            out.push(style.dim(&"─".repeat(width)));
        } else if let Some(text) = trimmed.strip_prefix('>') {
            let bar = style.dim("│ ");
            self.wrapped(&inline(text.trim_start()), &bar, &bar, out);
        } else if let Some(text) = ["- ", "* ", "+ "]
            .iter()
            .find_map(|marker| trimmed.strip_prefix(marker))
        {
            let first = format!("{indent}• ");
            self.prose(&first, text, out);
        } else if let Some((number, text)) = ordered_item(trimmed) {
            let first = format!("{indent}{number}. ");
            self.prose(&first, text, out);
        } else if trimmed.is_empty() {
            out.push(String::new());
        } else {
            self.prose(indent, trimmed, out);
        }
    }

    /// Inline Markdown `text` wrapped after `first`; later lines are indented as wide as it.
    fn prose(&self, first: &str, text: &str, out: &mut Vec<String>) {
        let hanging = " ".repeat(text_width(first));
        self.wrapped(&inline(text), first, &hanging, out);
    }

    /// `spans` wrapped to the width left after the prefixes (`first` on the first line, `rest`
    /// on the others; either may hold our own styling).
    fn wrapped(&self, spans: &[Span], first: &str, rest: &str, out: &mut Vec<String>) {
        let prefix_width = visible_width(first).max(visible_width(rest));
        let room = self.width.saturating_sub(prefix_width).max(10);
        for (index, line) in wrap(spans, room).iter().enumerate() {
            let prefix = if index == 0 { first } else { rest };
            out.push(format!("{prefix}{}", self.style.paint_spans(line)));
        }
    }
}

/// A line of code, highlighted when colour is on (a stream's style does not change, so with it
/// off the grammar has nothing to follow).
pub(crate) fn code_line(highlighter: &mut Highlighter, line: &str, style: Style) -> String {
    if style.has_color() {
        style.paint_spans(&highlighter.line(line))
    } else {
        line.to_owned()
    }
}

/// The width of a prefix that may hold our own SGR styling.
fn visible_width(prefix: &str) -> usize {
    let mut width = 0;
    let mut in_sgr = false;
    for c in prefix.chars() {
        match (in_sgr, c) {
            (false, '\x1b') => in_sgr = true,
            (true, 'm') => in_sgr = false,
            (true, _) => {}
            (false, c) => width += crate::wrap::char_width(c),
        }
    }
    width
}

fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) {
        line[hashes..].strip_prefix(' ').map(str::trim)
    } else {
        None
    }
}

fn is_rule(line: &str) -> bool {
    let line = line.trim();
    line.len() >= 3
        && ["-", "*", "_"]
            .iter()
            .any(|mark| line.chars().all(|c| c.to_string() == *mark || c == ' '))
}

fn ordered_item(line: &str) -> Option<(&str, &str)> {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = &line[digits..];
    let text = rest
        .strip_prefix(". ")
        .or_else(|| rest.strip_prefix(") "))?;
    Some((&line[..digits], text))
}

/// Emphasis, strong text, inline code and links of one line, as decorated runs.
fn inline(text: &str) -> Vec<Span> {
    // Most table cells and many lines hold no inline syntax: no parser needed for those.
    if !text.contains(INLINE_MARKS) {
        return vec![(Kind::Plain, text.trim_end().to_owned())];
    }
    let mut spans: Vec<Span> = Vec::new();
    let mut strong = 0usize;
    let mut emphasis = 0usize;
    let mut link: Option<String> = None;
    let mut push = |kind: Kind, piece: &str| match spans.last_mut() {
        Some((last, text)) if *last == kind => text.push_str(piece),
        _ => spans.push((kind, piece.to_owned())),
    };
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH) {
        let kind = if strong > 0 {
            Kind::Bold
        } else if emphasis > 0 {
            Kind::Italic
        } else {
            Kind::Plain
        };
        match event {
            Event::Text(piece) => push(kind, &piece),
            Event::Code(code) => push(Kind::Code, &code),
            Event::Start(Tag::Strong) => strong += 1,
            Event::End(TagEnd::Strong) => strong = strong.saturating_sub(1),
            Event::Start(Tag::Emphasis) => emphasis += 1,
            Event::End(TagEnd::Emphasis) => emphasis = emphasis.saturating_sub(1),
            Event::Start(Tag::Link { dest_url, .. }) => link = Some(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = link.take() {
                    push(Kind::Dim, &format!(" ({url})"));
                }
            }
            Event::Html(raw) | Event::InlineHtml(raw) => push(kind, &raw),
            Event::SoftBreak | Event::HardBreak => push(kind, " "),
            Event::InlineMath(math) | Event::DisplayMath(math) => push(kind, &math),
            _ => {}
        }
    }
    if spans.is_empty() && !text.trim().is_empty() {
        // Something the parser read as block syntax only (such as a lone `#`): show it as is.
        return vec![(Kind::Plain, text.to_owned())];
    }
    spans
}

/// The characters that can start inline Markdown (emphasis, code, links, HTML, entities,
/// escapes, strikethrough, math).
const INLINE_MARKS: &[char] = &['*', '_', '`', '[', ']', '<', '>', '&', '\\', '!', '~', '$'];

/// A whole answer rendered at `width` (the past-turn view and benchmarks).
pub fn render(text: &str, style: Style, width: usize) -> Vec<String> {
    let mut stream = MarkdownStream::new(style, width);
    let mut lines = stream.push(text);
    lines.extend(stream.finish());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_committed_only_when_they_end() {
        let mut stream = MarkdownStream::new(Style::plain(), 80);
        assert!(stream.push("The **answer").is_empty());
        assert!(stream.has_pending());
        assert_eq!(stream.push("** is 42.\nNext"), vec!["The answer is 42."]);
        assert_eq!(stream.finish(), vec!["Next"]);
    }

    #[test]
    fn block_structure_without_colour() {
        let lines = render(
            "# Sales\n- **March** fell\n2. second\n> quoted `x`\n```python\nprint(1)\n```\n---\n[docs](https://example.org)",
            Style::plain(),
            80,
        );
        assert_eq!(
            lines,
            vec![
                "Sales",
                "• March fell",
                "2. second",
                "│ quoted x",
                "```python",
                "  print(1)",
                "```",
                "────────────────────────────────",
                "docs (https://example.org)",
            ]
        );
    }

    #[test]
    fn colour_marks_strong_text_and_code() {
        let lines = render("a **b** `c`", Style::colored(), 80);
        assert_eq!(lines, vec!["a \x1b[1mb\x1b[0m \x1b[36mc\x1b[0m"]);
    }

    #[test]
    fn fences_keep_markdown_characters() {
        let lines = render("```\n# not a heading\n**x**\n```\n", Style::plain(), 80);
        assert_eq!(lines, vec!["```", "  # not a heading", "  **x**", "```"]);
    }

    #[test]
    fn a_table_waits_for_its_end_and_rows_that_are_no_table_stay_text() {
        let mut stream = MarkdownStream::new(Style::plain(), 80);
        assert!(stream.push("| a | b |\n|---|--:|\n| 1 | 22 |\n").is_empty());
        assert_eq!(
            stream.push("After.\n"),
            vec!["a │  b", "──┼───", "1 │ 22", "After."]
        );
        assert_eq!(
            render("| not | a table |\nplain", Style::plain(), 80),
            vec!["| not | a table |", "plain"]
        );
    }

    #[test]
    fn list_items_wrap_under_their_text() {
        assert_eq!(
            render("- one two three four five six", Style::plain(), 20),
            vec!["• one two three four", "  five six"]
        );
        assert_eq!(
            render("10. one two three four five six", Style::plain(), 20),
            vec!["10. one two three", "    four five six"]
        );
    }
}
