//! Reading a notebook's cells without touching them: the snippet that prints every cell from
//! marimo's notebook document, and the reader for what it prints.
//!
//! Unlike [`crate::code_mode::list_cells_code`], the snippet never reads `cell.code` through code
//! mode's cell view, so marimo does not record the cells as read by the agent (its
//! read-before-write check keeps working). With `analyse`, each cell's definitions and
//! references come from marimo's own compiler, and a cell that does not parse says where.

use serde::Deserialize;

use crate::error::{Error, Result};

/// Printed before the JSON list of cells.
const SNAPSHOT_MARKER: &str = "hailer-snapshot:";

/// The line printed after the list: the snapshot is complete.
pub(crate) const SNAPSHOT_END: &str = "hailer-snapshot-end";

/// What the snapshot snippet should do besides listing the cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// Add each cell's definitions and references (marimo's compiler) or its syntax error.
    pub analyse: bool,
    /// Turn on the kernel's in-memory `save.format_on_save`, so cells created or edited later
    /// through code mode are formatted (with ruff) before they run.
    pub format_on_save: bool,
    /// Add a fingerprint of each cell's chart output (`hailer_kernel.charts`), so a later
    /// snapshot tells which charts are new or changed.
    pub charts: bool,
}

/// A cell that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SyntaxIssue {
    /// 1-based line in the cell, when Python said.
    pub line: Option<u32>,
    /// Python's description of the problem (`invalid syntax`), or the compiler's error text
    /// when it failed for another reason.
    pub message: String,
}

/// One cell, as the notebook document holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CellSnapshot {
    /// marimo's id for the cell in this session (`Hbol`); ids are not stored in the file, so
    /// the same cell may get another id once the session is reopened.
    pub id: String,
    /// Empty or `_` for an unnamed cell.
    pub name: String,
    /// The cell's Python source as the notebook document holds it.
    pub code: String,
    /// idle, stale, exception, running, ... (`None` for an empty cell never run).
    pub status: Option<String>,
    /// One message per error affecting the cell.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Names the cell defines (only with `analyse`).
    #[serde(default)]
    pub defs: Vec<String>,
    /// Names the cell uses without defining them (only with `analyse`).
    #[serde(default)]
    pub refs: Vec<String>,
    /// Set when the cell does not compile (only with `analyse`).
    #[serde(default)]
    pub syntax: Option<SyntaxIssue>,
    /// A fingerprint of the chart the cell shows (only with `charts`; `None`: no chart).
    #[serde(default)]
    pub chart: Option<String>,
}

impl CellSnapshot {
    /// The cell's name, or `None` when it has none.
    pub fn given_name(&self) -> Option<&str> {
        Some(self.name.as_str()).filter(|name| !name.is_empty() && *name != "_")
    }
}

/// The snippet that prints the cells of the notebook it runs in as one JSON line.
pub(crate) fn snapshot_code(options: SnapshotOptions) -> String {
    let mut code = String::from(
        "import json as _h_json\n\
         import marimo._code_mode as _h_cm\n\
         from marimo._messaging.notebook.document import get_current_document as _h_document\n",
    );
    if options.analyse {
        code.push_str("from marimo._ast.compiler import compile_cell as _h_compile\n");
    }
    if options.charts {
        // An environment without the helper package still lists its cells.
        code.push_str(
            "try:\n    \
             from hailer_kernel import charts as _h_charts\n\
             except Exception:\n    \
             _h_charts = None\n",
        );
    }
    code.push_str(
        "async with _h_cm.get_context() as _h_ctx:\n    \
         _h_views = {_h_view.id: _h_view for _h_view in _h_ctx.cells}\n",
    );
    if options.format_on_save {
        code.push_str("    _h_ctx._kernel.user_config['save']['format_on_save'] = True\n");
    }
    code.push_str(
        "    _h_rows = []\n    \
         for _h_cell in _h_document().cells:\n        \
         _h_view = _h_views.get(_h_cell.id)\n        \
         _h_status = None if _h_view is None else _h_view.status\n        \
         _h_row = {'id': _h_cell.id, 'name': _h_cell.name, 'code': _h_cell.code, \
         'status': None if _h_status is None else str(_h_status), \
         'errors': [] if _h_view is None else [_h_e.msg for _h_e in _h_view.errors]}\n",
    );
    if options.analyse {
        code.push_str(
            "        try:\n            \
             _h_impl = _h_compile(_h_cell.code, _h_cell.id)\n            \
             _h_row['defs'] = sorted(_h_impl.defs)\n            \
             _h_row['refs'] = sorted(_h_impl.refs)\n        \
             except SyntaxError as _h_error:\n            \
             _h_row['syntax'] = {'line': _h_error.lineno, 'message': str(_h_error.msg)}\n        \
             except Exception as _h_error:\n            \
             _h_row['syntax'] = {'line': None, 'message': str(_h_error)}\n",
        );
    }
    if options.charts {
        code.push_str(
            "        _h_out = None if _h_view is None else _h_view.output\n        \
             if _h_charts is not None and _h_out is not None:\n            \
             _h_row['chart'] = _h_charts.digest(str(_h_out.mimetype), _h_out.data)\n",
        );
    }
    code.push_str(
        "        _h_rows.append(_h_row)\n\
         print('hailer-snapshot:' + _h_json.dumps(_h_rows))\n\
         print('hailer-snapshot-end')\n",
    );
    code
}

/// The cells a snapshot snippet printed.
pub(crate) fn parse_snapshot(stdout: &str) -> Result<Vec<CellSnapshot>> {
    let json = stdout
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix(SNAPSHOT_MARKER))
        .ok_or_else(|| Error::CodeMode {
            detail: "the cell snapshot was not printed".to_owned(),
        })?;
    serde_json::from_str(json.trim()).map_err(|e| Error::CodeMode {
        detail: format!("the cell snapshot could not be read: {e}"),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_snippet_never_reads_code_through_the_cell_view() {
        for analyse in [false, true] {
            for format_on_save in [false, true] {
                for charts in [false, true] {
                    let code = snapshot_code(SnapshotOptions {
                        analyse,
                        format_on_save,
                        charts,
                    });
                    assert!(!code.contains("_h_view.code"), "{code}");
                    assert_eq!(code.contains("_h_compile("), analyse);
                    assert_eq!(code.contains("format_on_save"), format_on_save);
                    assert_eq!(code.contains("_h_charts.digest("), charts);
                }
            }
        }
    }

    #[test]
    fn snapshots_parse_with_and_without_analysis() {
        let out = "noise\nhailer-snapshot:[{\"id\": \"Hbol\", \"name\": \"_\", \"code\": \"x = 1\", \
                   \"status\": \"idle\", \"errors\": [], \"defs\": [\"x\"], \"refs\": []}, \
                   {\"id\": \"MJUe\", \"name\": \"bad\", \"code\": \"def (\", \"status\": null, \
                   \"errors\": [], \"syntax\": {\"line\": 1, \"message\": \"invalid syntax\"}}]\n";
        let cells = parse_snapshot(out).unwrap();
        assert_eq!(cells[0].defs, vec!["x"]);
        assert_eq!(cells[0].given_name(), None);
        assert_eq!(cells[1].given_name(), Some("bad"));
        assert_eq!(cells[1].syntax.as_ref().unwrap().line, Some(1));
        assert!(parse_snapshot("nothing").is_err());
    }
}
