//! Python snippets that change the notebook's cells through `marimo._code_mode`, and readers for
//! what they print.
//!
//! Cells made this way are saved to the notebook file by marimo itself. User code is embedded as
//! a Python string literal that is pure ASCII, so no quote, backslash, triple quote or non-ASCII
//! character can break out of it.

use std::fmt::Write as _;

use serde::Deserialize;

use crate::error::{Error, Result};

/// Printed before the id of the cell a snippet created or edited.
const CELL_ID_MARKER: &str = "hailer-cell-id:";
/// Printed before the JSON list of cells.
const CELLS_MARKER: &str = "hailer-cells:";

/// A cell to create.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewCell {
    /// The cell's Python source, stored as given (a NUL in it is refused).
    pub code: String,
    /// A name for the cell (becomes the function name in the file).
    pub name: Option<String>,
    /// Whether marimo hides the cell's code in the notebook view (`hide_code=True` in the
    /// file).
    pub hide_code: bool,
    /// Run the cell right after creating it.
    pub run: bool,
    /// Insert after this cell (id or name); at the end when `None`.
    pub after: Option<String>,
}

/// A change to an existing cell; `None` fields keep what the cell has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellEdit {
    /// The cell's id or name.
    pub target: String,
    /// The cell's new Python source.
    pub code: Option<String>,
    /// The cell's new name (the function name in the file).
    pub name: Option<String>,
    /// Whether marimo should hide the cell's code in the notebook view.
    pub hide_code: Option<bool>,
    /// Run the cell after the change.
    pub run: bool,
    /// Overwrite even if the cell changed since it was last listed (marimo refuses by default).
    pub overwrite_unread: bool,
}

/// One cell as the kernel sees it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct CellInfo {
    /// marimo's id for the cell in this session (`Hbol`); ids are not stored in the file, so
    /// the same cell may get another id once the session is reopened.
    pub id: String,
    /// The cell's name; `_` for an unnamed cell.
    pub name: String,
    /// idle, stale, exception, running, ... (`None` for an empty cell never run).
    pub status: Option<String>,
    /// One message per error affecting the cell.
    pub errors: Vec<String>,
    /// The cell's Python source as marimo holds it.
    pub code: String,
}

/// `text` as a Python string literal that evaluates back to exactly `text`.
///
/// The literal is single-quoted and pure ASCII: quotes, backslashes and control characters are
/// escaped, and every non-ASCII character becomes a `\u`/`\U` escape. NUL is refused, because
/// Python source cannot carry it and marimo would not store it.
pub fn python_string_literal(text: &str) -> Result<String> {
    if text.contains('\0') {
        return Err(Error::NulInCode);
    }
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('\'');
    for c in text.chars() {
        match c {
            '\\' => literal.push_str("\\\\"),
            '\'' => literal.push_str("\\'"),
            '\n' => literal.push_str("\\n"),
            '\r' => literal.push_str("\\r"),
            '\t' => literal.push_str("\\t"),
            ' '..='~' => literal.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(literal, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(literal, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(literal, "\\U{:08x}", c as u32);
            }
        }
    }
    literal.push('\'');
    Ok(literal)
}

fn optional_literal(value: Option<&str>) -> Result<String> {
    value.map_or_else(|| Ok("None".to_owned()), python_string_literal)
}

fn python_bool(value: bool) -> &'static str {
    if value { "True" } else { "False" }
}

/// The snippet that creates (and optionally runs) a cell, printing its id.
pub(crate) fn create_cell_code(cell: &NewCell) -> Result<String> {
    let code = python_string_literal(&cell.code)?;
    let name = optional_literal(cell.name.as_deref())?;
    let after = optional_literal(cell.after.as_deref())?;
    let hide = python_bool(cell.hide_code);
    let run_line = if cell.run {
        "    ctx.run_cell(cid)\n"
    } else {
        ""
    };
    Ok(format!(
        "import marimo._code_mode as cm\n\
         async with cm.get_context() as ctx:\n    \
         cid = ctx.create_cell({code}, hide_code={hide}, name={name}, after={after})\n\
         {run_line}\
         print({marker} + cid)\n",
        marker = python_string_literal(CELL_ID_MARKER)?,
    ))
}

/// The snippet that edits (and optionally runs) a cell, printing its id.
pub(crate) fn edit_cell_code(edit: &CellEdit) -> Result<String> {
    let target = python_string_literal(&edit.target)?;
    let code = optional_literal(edit.code.as_deref())?;
    let name = optional_literal(edit.name.as_deref())?;
    let hide = edit.hide_code.map_or("None", python_bool);
    let skip_check = python_bool(edit.overwrite_unread);
    let run_line = if edit.run {
        "    ctx.run_cell(cid)\n"
    } else {
        ""
    };
    Ok(format!(
        "import marimo._code_mode as cm\n\
         async with cm.get_context(skip_staleness_check={skip_check}) as ctx:\n    \
         cid = ctx.cells[{target}].id\n    \
         ctx.edit_cell(cid, {code}, hide_code={hide}, name={name})\n\
         {run_line}\
         print({marker} + cid)\n",
        marker = python_string_literal(CELL_ID_MARKER)?,
    ))
}

/// The snippet that lists the cells as one JSON line (reading them also lets later edits pass
/// marimo's read-before-write check).
pub(crate) fn list_cells_code() -> String {
    format!(
        "import json as _json\n\
         import marimo._code_mode as cm\n\
         async with cm.get_context() as ctx:\n    \
         _cells = [{{'id': c.id, 'name': c.name, 'status': None if c.status is None else str(c.status), \
         'errors': [e.msg for e in c.errors], 'code': c.code}} for c in ctx.cells]\n\
         print('{CELLS_MARKER}' + _json.dumps(_cells))\n"
    )
}

/// The cell id a create or edit snippet printed (its last marker line).
pub(crate) fn parse_cell_id(stdout: &str) -> Option<&str> {
    last_marked(stdout, CELL_ID_MARKER).filter(|id| !id.is_empty())
}

/// The cells a list snippet printed.
pub(crate) fn parse_cells(stdout: &str) -> Result<Vec<CellInfo>> {
    let json = last_marked(stdout, CELLS_MARKER).ok_or_else(|| Error::CodeMode {
        detail: "the cell list was not printed".to_owned(),
    })?;
    serde_json::from_str(json).map_err(|e| Error::CodeMode {
        detail: format!("the cell list could not be read: {e}"),
    })
}

fn last_marked<'a>(stdout: &'a str, marker: &str) -> Option<&'a str> {
    stdout
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(marker))
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn literal_escapes_everything_dangerous() {
        assert_eq!(python_string_literal("plain").unwrap(), "'plain'");
        assert_eq!(
            python_string_literal("it's \"q\" \\ '''x'''").unwrap(),
            r#"'it\'s "q" \\ \'\'\'x\'\'\''"#
        );
        assert_eq!(
            python_string_literal("a\nb\r\tc\x07\x7f").unwrap(),
            r"'a\nb\r\tc\x07\x7f'"
        );
        assert_eq!(
            python_string_literal("é€😀").unwrap(),
            r"'\xe9\u20ac\U0001f600'"
        );
        assert!(python_string_literal("é€😀").unwrap().is_ascii());
    }

    #[test]
    fn nul_is_refused_with_a_clear_message() {
        let err = python_string_literal("a\0b").unwrap_err();
        assert!(err.to_string().contains("NUL"), "{err}");
        assert!(
            create_cell_code(&NewCell {
                code: "x\0".into(),
                ..NewCell::default()
            })
            .is_err()
        );
    }

    #[test]
    fn create_snippet_has_the_expected_shape() {
        let code = create_cell_code(&NewCell {
            code: "x = 1".into(),
            name: Some("first".into()),
            hide_code: false,
            run: true,
            after: None,
        })
        .unwrap();
        assert_eq!(
            code,
            "import marimo._code_mode as cm\n\
             async with cm.get_context() as ctx:\n    \
             cid = ctx.create_cell('x = 1', hide_code=False, name='first', after=None)\n    \
             ctx.run_cell(cid)\n\
             print('hailer-cell-id:' + cid)\n"
        );
    }

    #[test]
    fn edit_snippet_keeps_unset_fields() {
        let code = edit_cell_code(&CellEdit {
            target: "Hbol".into(),
            code: Some("y = 2".into()),
            ..CellEdit::default()
        })
        .unwrap();
        assert!(
            code.contains("get_context(skip_staleness_check=False)"),
            "{code}"
        );
        assert!(
            code.contains("ctx.edit_cell(cid, 'y = 2', hide_code=None, name=None)"),
            "{code}"
        );
        assert!(!code.contains("run_cell"), "{code}");
    }

    /// Decodes the literals [`python_string_literal`] writes (the subset of Python's rules it uses).
    fn decode_literal(literal: &str) -> String {
        let inner = &literal[1..literal.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                assert!(
                    c != '\'' && c.is_ascii() && !c.is_ascii_control(),
                    "raw {c:?} in {literal}"
                );
                out.push(c);
                continue;
            }
            let escape = chars.next().unwrap();
            let mut hex = |n: usize| {
                let digits: String = chars.by_ref().take(n).collect();
                char::from_u32(u32::from_str_radix(&digits, 16).unwrap()).unwrap()
            };
            out.push(match escape {
                '\\' => '\\',
                '\'' => '\'',
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'x' => hex(2),
                'u' => hex(4),
                'U' => hex(8),
                other => panic!("unexpected escape {other:?}"),
            });
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn literals_round_trip(
            text in "[^\x00]{0,64}",
            extra in r#"("""|'''|\\\\|\r\n|é|😀){0,6}"#,
        ) {
            let text = format!("{text}{extra}");
            let literal = python_string_literal(&text).unwrap();
            proptest::prop_assert!(literal.is_ascii());
            proptest::prop_assert_eq!(decode_literal(&literal), text);
        }
    }

    #[test]
    fn the_last_marker_wins() {
        let out = "hailer-cell-id:fake\nsome output\ncreated cell 'Abcd'\nhailer-cell-id:Abcd\n";
        assert_eq!(parse_cell_id(out), Some("Abcd"));
        assert_eq!(parse_cell_id("nothing here"), None);
        assert_eq!(parse_cell_id("hailer-cell-id:\n"), None);
    }

    #[test]
    fn cells_parse_from_their_json_line() {
        let out = "noise\nhailer-cells:[{\"id\": \"Hbol\", \"name\": \"_\", \"status\": \"idle\", \
                   \"errors\": [], \"code\": \"import marimo as mo\"}]\n";
        let cells = parse_cells(out).unwrap();
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].id, "Hbol");
        assert_eq!(cells[0].status.as_deref(), Some("idle"));
        assert!(parse_cells("no list").is_err());
        assert!(parse_cells("hailer-cells:[{").is_err());
    }
}
