//! An answer rendered for a terminal, line by line: Markdown with highlighted code blocks and
//! tables, wrapped to a width in display columns, and the view of a tool call. Everything the
//! model or a kernel wrote is cleaned of control sequences first, so only Hailer's own styling
//! reaches the terminal.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

pub mod highlight;
pub mod markdown;
pub mod sanitize;
pub mod style;
mod table;
pub mod tool_view;
pub mod wrap;

/// A whole answer as the terminal shows it: cleaned of control sequences, then rendered as
/// Markdown at `width` columns, in colour or not.
pub fn render_answer(text: &str, width: usize, color: bool) -> Vec<String> {
    markdown::render(&sanitize::clean(text), Style::with_color(color), width)
}

pub use style::Style;
