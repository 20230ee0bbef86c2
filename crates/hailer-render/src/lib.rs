//! An answer rendered for a terminal, line by line: Markdown with highlighted code blocks and
//! tables, wrapped to a width in display columns, and the view of a tool call. Everything the
//! model or a kernel wrote is cleaned of control sequences first, so only Hailer's own styling
//! reaches the terminal.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod highlight;
mod markdown;
mod sanitize;
mod style;
mod table;
mod tool_view;
mod wrap;

pub use highlight::preload_in_background as preload_highlighting;
pub use markdown::{MarkdownStream, render as render_markdown};
#[cfg(any(test, feature = "test-support"))]
pub use sanitize::assert_only_our_styling;
pub use sanitize::{clean, clean_all, escape_json_text};
pub use style::Style;
pub use tool_view::{
    chart_line as tool_chart_line, code_lines, error_line as tool_error_line,
    finished as tool_finished, started as tool_started,
};
pub use wrap::text_width;

/// A whole answer as the terminal shows it: cleaned of control sequences, then rendered as
/// Markdown at `width` columns, in colour or not.
pub fn render_answer(text: &str, width: usize, color: bool) -> Vec<String> {
    markdown::render(&sanitize::clean(text), Style::with_color(color), width)
}
