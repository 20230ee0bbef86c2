//! `hailer config check`: every problem of the workspace's configuration. Its messages quote
//! values from the file, so they are printed with visible escapes.

use std::process::ExitCode;

use hailer_config::escape_visible;
use hailer_config::{LoadInputs, Overrides, Problem, Severity};

use crate::output::outln;
use hailer_render::escape_json_text;

pub(crate) fn check(overrides: Overrides, json: bool) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let report = hailer_config::check(&inputs);
    if json {
        outln!(
            "{}",
            escape_json_text(&serde_json::to_string_pretty(&report)?)
        )?;
    } else if report.is_clean() {
        outln!("The configuration is fine.")?;
    } else {
        for problem in report.all() {
            print_problem(problem)?;
        }
        outln!(
            "\n{} fatal, {} warning(s).",
            report.fatal.len(),
            report.warnings.len()
        )?;
    }
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_problem(problem: &Problem) -> std::io::Result<()> {
    let label = match problem.severity {
        Severity::Fatal => "FAIL",
        Severity::Warning => "warn",
    };
    outln!("{label}  {}", escape_visible(&problem.message))?;
    if !problem.hint.is_empty() {
        for line in escape_visible(&problem.hint).lines() {
            outln!("      {line}")?;
        }
    }
    Ok(())
}
