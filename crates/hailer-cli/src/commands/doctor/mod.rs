//! `hailer doctor`: is this workspace ready for a session? One row per part, judged with this
//! shell's environment; starts no kernel and calls no model. Exits 1 on any FAIL.

mod checks;
mod data_access;
mod docker_rows;
pub(crate) mod probe;
mod trust_row;

use std::process::ExitCode;

use hailer_config::HailerHome;
use hailer_config::{LoadInputs, Overrides};
use serde::Serialize;

use crate::output::{out, outln};
use crate::session_client::SessionFlags;

/// How a part fares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Verdict {
    Ok,
    Warn,
    Fail,
}

impl Verdict {
    fn label(self) -> &'static str {
        match self {
            Verdict::Ok => "OK",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
        }
    }
}

/// One checked part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Row {
    pub check: &'static str,
    pub verdict: Verdict,
    pub summary: String,
    /// What to do, or the details of the summary.
    pub hints: Vec<String>,
}

impl Row {
    fn new(check: &'static str, verdict: Verdict, summary: impl Into<String>) -> Self {
        Self {
            check,
            verdict,
            summary: summary.into(),
            hints: Vec::new(),
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        let hint = hint.into();
        if !hint.is_empty() {
            self.hints.extend(hint.lines().map(str::to_owned));
        }
        self
    }
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    ok: bool,
    rows: &'a [Row],
}

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    overrides: Overrides,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let rows = checks::all(home, &inputs, flags).await;
    let ok = rows.iter().all(|row| row.verdict != Verdict::Fail);
    if json {
        outln!(
            "{}",
            hailer_render::escape_json_text(&serde_json::to_string_pretty(&Report {
                ok,
                rows: &rows
            })?)
        )?;
    } else {
        // Rows quote the configuration, which may come from someone else: shown as written,
        // with visible escapes.
        out!("{}", hailer_config::escape_visible(&table(&rows)))?;
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The rows as a table: check, verdict, summary, and indented hints.
fn table(rows: &[Row]) -> String {
    let mut out = String::from("Hailer doctor\n");
    for row in rows {
        out.push_str(&format!(
            "  {:<12} {:<5} {}\n",
            row.check,
            row.verdict.label(),
            row.summary
        ));
        for hint in &row.hints {
            out.push_str(&format!("  {:<12} {:<5} {hint}\n", "", ""));
        }
    }
    out
}
