//! Markdown tables laid out to the terminal's width: columns as wide as their widest cell when
//! that fits, else shared out so narrow columns keep their width and wide ones give way, cells
//! that do not fit cut with an ellipsis.

use crate::style::{Kind, Style};
use crate::wrap::{text_width, truncate_text};

/// Between two columns.
const SEPARATOR: &str = " │ ";
/// The narrowest a column is squeezed to.
const MIN_COLUMN: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Center,
    Right,
}

/// The cells of a row: `| a | b |` gives `a` and `b` (a `\|` is a literal bar).
pub(crate) fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line
        .strip_suffix('|')
        .filter(|_| !line.ends_with("\\|"))
        .unwrap_or(line);
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    cells
}

/// The alignments a delimiter row (`|---|:--:|--:|`) sets, or `None` when the row is not one.
pub(crate) fn delimiter(cells: &[String]) -> Option<Vec<Align>> {
    cells
        .iter()
        .map(|cell| {
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.chars().all(|c| c == '-') {
                return None;
            }
            Some(match (cell.starts_with(':'), cell.ends_with(':')) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

/// A table: its header, alignments and rows, each cell already plain text.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub header: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table's lines at `width` columns: header, rule, rows.
    pub(crate) fn render(&self, width: usize, style: Style) -> Vec<String> {
        let columns = self
            .rows
            .iter()
            .map(Vec::len)
            .chain([self.header.len()])
            .max()
            .unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let natural: Vec<usize> = (0..columns)
            .map(|column| {
                self.rows
                    .iter()
                    .chain([&self.header])
                    .filter_map(|row| row.get(column))
                    .map(|cell| text_width(cell))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let widths = fit(
            &natural,
            width.saturating_sub(text_width(SEPARATOR) * (columns - 1)),
        );
        let mut lines = Vec::with_capacity(self.rows.len() + 2);
        lines.push(self.line(&self.header, &widths, style, Kind::Bold));
        let rule: Vec<String> = widths.iter().map(|width| "─".repeat(*width)).collect();
        lines.push(style.dim(&rule.join("─┼─")));
        for row in &self.rows {
            lines.push(self.line(row, &widths, style, Kind::Plain));
        }
        lines
    }

    fn line(&self, row: &[String], widths: &[usize], style: Style, kind: Kind) -> String {
        let separator = style.dim(SEPARATOR);
        let mut out = String::new();
        for (column, width) in widths.iter().enumerate() {
            if column > 0 {
                out.push_str(&separator);
            }
            let cell = row.get(column).map(String::as_str).unwrap_or_default();
            let text = truncate_text(cell, *width);
            let room = width.saturating_sub(text_width(&text));
            let align = self.align.get(column).copied().unwrap_or(Align::Left);
            let (before, after) = match align {
                Align::Left => (0, room),
                Align::Right => (room, 0),
                Align::Center => (room / 2, room - room / 2),
            };
            // The last column is not padded on the right: no trailing spaces.
            let after = if column + 1 == widths.len() { 0 } else { after };
            out.push_str(&" ".repeat(before));
            out.push_str(&style.paint(kind, &text));
            out.push_str(&" ".repeat(after));
        }
        out.trim_end().to_owned()
    }
}

/// Column widths within `room`: each its natural width when all fit; otherwise the narrow ones
/// keep theirs and the rest share what is left equally (never under [`MIN_COLUMN`]).
fn fit(natural: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|column| natural[*column]);
    let mut widths = vec![0; natural.len()];
    let mut left = room;
    for (done, column) in order.iter().enumerate() {
        let share = left / (natural.len() - done);
        let width = natural[*column]
            .min(share)
            .max(MIN_COLUMN.min(natural[*column]));
        widths[*column] = width;
        left = left.saturating_sub(width);
    }
    widths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_split_into_cells() {
        assert_eq!(cells("| a | b c |"), vec!["a", "b c"]);
        assert_eq!(cells("|a|b"), vec!["a", "b"]);
        assert_eq!(cells("| x \\| y | z |"), vec!["x | y", "z"]);
    }

    #[test]
    fn delimiter_rows_set_alignment() {
        let row = cells("|---|:--:|--:|");
        assert_eq!(
            delimiter(&row),
            Some(vec![Align::Left, Align::Center, Align::Right])
        );
        assert_eq!(delimiter(&cells("| a | b |")), None);
    }

    #[test]
    fn narrow_columns_keep_their_width() {
        assert_eq!(fit(&[3, 50, 40], 100), vec![3, 50, 40]);
        assert_eq!(fit(&[3, 50, 40], 43), vec![3, 20, 20]);
        assert_eq!(fit(&[10, 10], 4), vec![3, 3]);
    }
}
