//! `hailer config check`: every problem of the workspace's configuration.

use std::process::ExitCode;

use hailer_config::{LoadInputs, Overrides, Problem, Severity};

pub(crate) fn check(overrides: Overrides, json: bool) -> anyhow::Result<ExitCode> {
    let inputs = LoadInputs::from_process(overrides)?;
    let report = hailer_config::check(&inputs);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
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
    println!("{label}  {}", problem.message);
    if !problem.hint.is_empty() {
        for line in problem.hint.lines() {
            println!("      {line}");
        }
    }
}
