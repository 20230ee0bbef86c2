//! Markdown for the terminal, rendered line by line as a streamed answer completes its lines.
//!
//! Only whole lines are rendered, so what is on the screen never has to be redrawn: a line is
//! committed when its newline arrives, the rest waits. Block structure (fences, headings, lists,
//! quotes, rules) is read from the start of each line; inline emphasis, code and links go
//! through `pulldown-cmark`.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::style::Style;

/// An answer being streamed: text not yet ending in a newline waits in `pending`.
#[derive(Debug)]
pub struct MarkdownStream {
    style: Style,
    pending: String,
    in_fence: bool,
}

impl MarkdownStream {
    pub fn new(style: Style) -> Self {
        Self {
            style,
            pending: String::new(),
            in_fence: false,
        }
    }

    /// Adds a piece of the answer; returns the lines it completed, rendered.
    pub fn push(&mut self, delta: &str) -> Vec<String> {
        self.pending.push_str(delta);
        let mut lines = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            lines.push(self.render_line(line.trim_end_matches(['\n', '\r'])));
        }
        lines
    }

    /// The answer ended: renders what is left.
    pub fn finish(&mut self) -> Vec<String> {
        let rest = std::mem::take(&mut self.pending);
        self.in_fence = false;
        if rest.is_empty() {
            Vec::new()
        } else {
            vec![self.render_line(rest.trim_end_matches('\r'))]
        }
    }

    /// Whether part of a line is waiting for its end.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    fn render_line(&mut self, line: &str) -> String {
        let style = self.style;
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_fence = !self.in_fence;
            return style.dim(trimmed);
        }
        if self.in_fence {
            return format!("  {}", style.cyan(line));
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(text) = heading_text(trimmed) {
            return style.bold(&inline(text, style));
        }
        if is_rule(trimmed) {
            return style.dim("────────────────────────────────");
        }
        if let Some(text) = trimmed.strip_prefix('>') {
            return format!("{}{}", style.dim("│ "), inline(text.trim_start(), style));
        }
        if let Some(text) = ["- ", "* ", "+ "]
            .iter()
            .find_map(|marker| trimmed.strip_prefix(marker))
        {
            return format!("{indent}• {}", inline(text, style));
        }
        if let Some((number, text)) = ordered_item(trimmed) {
            return format!("{indent}{number}. {}", inline(text, style));
        }
        if trimmed.starts_with('|') {
            return line.to_owned();
        }
        format!("{indent}{}", inline(trimmed, style))
    }
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

/// Emphasis, strong text, inline code and links of one line.
fn inline(text: &str, style: Style) -> String {
    let mut out = String::new();
    let mut strong = 0usize;
    let mut emphasis = 0usize;
    let mut link: Option<String> = None;
    let push_text = |out: &mut String, piece: &str, strong: usize, emphasis: usize| {
        let piece = if strong > 0 {
            style.bold(piece)
        } else if emphasis > 0 {
            style.italic(piece)
        } else {
            piece.to_owned()
        };
        out.push_str(&piece);
    };
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(piece) => push_text(&mut out, &piece, strong, emphasis),
            Event::Code(code) => out.push_str(&style.cyan(&code)),
            Event::Start(Tag::Strong) => strong += 1,
            Event::End(TagEnd::Strong) => strong = strong.saturating_sub(1),
            Event::Start(Tag::Emphasis) => emphasis += 1,
            Event::End(TagEnd::Emphasis) => emphasis = emphasis.saturating_sub(1),
            Event::Start(Tag::Link { dest_url, .. }) => link = Some(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = link.take() {
                    out.push_str(&style.dim(&format!(" ({url})")));
                }
            }
            Event::Html(raw) | Event::InlineHtml(raw) => out.push_str(&raw),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            Event::InlineMath(math) | Event::DisplayMath(math) => out.push_str(&math),
            _ => {}
        }
    }
    if out.is_empty() && !text.trim().is_empty() {
        // Something the parser read as block syntax only (such as a lone `#`): show it as is.
        return text.to_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str, style: Style) -> Vec<String> {
        let mut stream = MarkdownStream::new(style);
        let mut lines = stream.push(text);
        lines.extend(stream.finish());
        lines
    }

    #[test]
    fn lines_are_committed_only_when_they_end() {
        let mut stream = MarkdownStream::new(Style::plain());
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
        let lines = render("a **b** `c`", Style::colored());
        assert_eq!(lines, vec!["a \x1b[1mb\x1b[0m \x1b[36mc\x1b[0m"]);
    }

    #[test]
    fn fences_keep_markdown_characters() {
        let lines = render("```\n# not a heading\n**x**\n```\n", Style::plain());
        assert_eq!(lines, vec!["```", "  # not a heading", "  **x**", "```"]);
    }
}
