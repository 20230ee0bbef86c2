//! A tool call as a person reviews it: the Python it runs, highlighted, long code folded to its
//! first and last lines, then its outcome and the start of its result. The live turn and the
//! conversation shown on attach both use these lines. Every string must have been through
//! [`crate::sanitize::clean`].

use crate::highlight::Highlighter;
use crate::markdown::code_line;
use crate::style::Style;
use crate::wrap::{text_width, truncate, truncate_text};

/// Code of more lines than this is folded.
const FOLD_OVER: usize = 12;
/// Lines kept from the start and from the end of folded code.
const HEAD_LINES: usize = 6;
const TAIL_LINES: usize = 3;
/// Lines of the result shown.
const RESULT_LINES: usize = 4;
/// Left of each line of code.
const GUTTER: &str = "  │ ";

/// The code's lines as shown: all of them when short, else the first and last few around a line
/// saying how many were left out. `None` stands for that line.
pub(crate) fn folded(code: &str) -> Vec<Option<&str>> {
    let lines: Vec<&str> = code.trim_end().lines().collect();
    if lines.len() <= FOLD_OVER {
        return lines.into_iter().map(Some).collect();
    }
    let mut shown: Vec<Option<&str>> = lines[..HEAD_LINES].iter().copied().map(Some).collect();
    shown.push(None);
    shown.extend(lines[lines.len() - TAIL_LINES..].iter().copied().map(Some));
    shown
}

/// `code` highlighted in a gutter, folded when long, each line cut to `width`.
pub fn code_lines(code: &str, style: Style, width: usize) -> Vec<String> {
    let total = code.trim_end().lines().count();
    let hidden = total.saturating_sub(HEAD_LINES + TAIL_LINES);
    let room = width.saturating_sub(text_width(GUTTER)).max(10);
    let gutter = style.dim(GUTTER);
    let mut highlighter = Highlighter::python();
    let mut out = Vec::new();
    let mut skipped = false;
    for line in folded(code) {
        match line {
            Some(line) => {
                if skipped {
                    // Strings open across the fold are not followed: start afresh.
                    highlighter = Highlighter::python();
                    skipped = false;
                }
                let line = line.replace('\t', "    ");
                let shown = if text_width(&line) > room {
                    if style.has_color() {
                        style.paint_spans(&truncate(&highlighter.line(&line), room))
                    } else {
                        truncate_text(&line, room)
                    }
                } else {
                    code_line(&mut highlighter, &line, style)
                };
                out.push(format!("{gutter}{shown}"));
            }
            None => {
                skipped = true;
                out.push(format!(
                    "{gutter}{}",
                    style.dim(&format!("… {} …", more_lines(hidden)))
                ));
            }
        }
    }
    out
}

/// The lines for a tool call that starts: its name, then its code (or its arguments' preview).
pub fn started(
    name: &str,
    preview: &str,
    code: Option<&str>,
    style: Style,
    width: usize,
) -> Vec<String> {
    match code.filter(|code| !code.trim().is_empty()) {
        Some(code) => {
            let mut lines = vec![style.dim(&format!("· {name}"))];
            lines.extend(code_lines(code, style, width));
            lines
        }
        None => vec![style.dim(&truncate_text(
            &format!("· {name}: {}", one_line(preview)),
            width,
        ))],
    }
}

/// The lines for a tool call that finished: ok or error, and the start of its result.
pub fn finished(
    name: &str,
    ok: Option<bool>,
    preview: &str,
    output: &str,
    style: Style,
    width: usize,
) -> Vec<String> {
    let outcome = match ok {
        Some(true) => style.green("ok"),
        Some(false) => style.red("error"),
        None => style.dim("no result"),
    };
    let mut lines = vec![format!("  {outcome} {name}")];
    let result = if output.trim().is_empty() {
        preview
    } else {
        output
    };
    let result_lines: Vec<&str> = result
        .trim_end()
        .lines()
        .skip_while(|line| line.trim().is_empty())
        .collect();
    let room = width.saturating_sub(4).max(10);
    for (index, line) in result_lines.iter().take(RESULT_LINES).enumerate() {
        let shown = truncate_text(&line.replace('\t', "    "), room);
        // A failed call's first line is its error: in red, so it reads as one.
        let shown = if index == 0 && ok == Some(false) {
            style.red(&shown)
        } else {
            shown
        };
        lines.push(format!("    {shown}"));
    }
    if result_lines.len() > RESULT_LINES {
        lines.push(format!(
            "    {}",
            style.dim(&format!(
                "… {}",
                more_lines(result_lines.len() - RESULT_LINES)
            ))
        ));
    }
    lines
}

/// The first line of a failed call's result, without the `ERROR:` its text starts with.
pub fn error_line(result: &str) -> String {
    let first = result
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("no result");
    first
        .strip_prefix("ERROR:")
        .unwrap_or(first)
        .trim()
        .to_owned()
}

/// A chart the turn made, on one line: its title, its cell and notebook.
pub fn chart_line(chart: &hailer_protocol::Chart, style: Style, width: usize) -> String {
    let title = match &chart.title {
        Some(title) if !title.trim().is_empty() => format!("\"{}\"", title.trim()),
        _ => "untitled".to_owned(),
    };
    let line = format!(
        "  ▸ chart {title} · cell {} in {}",
        one_line(&chart.cell),
        one_line(&chart.notebook)
    );
    style.dim(&truncate_text(&line, width))
}

fn more_lines(count: usize) -> String {
    match count {
        1 => "1 more line".to_owned(),
        n => format!("{n} more lines"),
    }
}

/// The first non-empty line of a preview, with a mark when there was more.
fn one_line(preview: &str) -> String {
    let mut lines = preview.lines().filter(|line| !line.trim().is_empty());
    let first = lines.next().unwrap_or_default().trim().to_owned();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}
