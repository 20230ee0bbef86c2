//! `hailer config check`: every problem of the workspace's configuration. Its messages quote
//! values from the file, so they are printed with visible escapes.

use std::process::ExitCode;

use hailer_config::sanitize::escape_visible;
use hailer_config::{LoadInputs, Overrides, Problem, Severity};

use crate::chat::sanitize::escape_json_text;

pub(crate) fn check(overrides: Overrides, json: bool) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let report = hailer_config::check(&inputs);
    if json {
        println!(
            "{}",
            escape_json_text(&serde_json::to_string_pretty(&report)?)
        );
    } else if report.is_clean() {
        println!("The configuration is fine.");
    } else {
        for problem in report.all() {
            print_problem(problem);
        }
        println!(
            "\n{} fatal, {} warning(s).",
            report.fatal.len(),
            report.warnings.len()
        );
    }
    Ok(if report.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print_problem(problem: &Problem) {
    let label = match problem.severity {
        Severity::Fatal => "FAIL",
        Severity::Warning => "warn",
    };
    println!("{label}  {}", escape_visible(&problem.message));
    if !problem.hint.is_empty() {
        for line in escape_visible(&problem.hint).lines() {
            println!("      {line}");
        }
    }
}
