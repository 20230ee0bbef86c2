//! `hailer`, the thin client of hailerd. The `hailer` package's `hailer` binary is [`main`].

#![warn(missing_docs)]

mod browser;
mod chat;
mod cli;
mod commands;
mod context;
mod daemon_client;
mod dispatch;
mod docker_probe;
mod http;
mod logging;
mod model_check;
mod session_client;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

pub use chat::render_answer;

/// The `hailer` program.
pub fn main() -> ExitCode {
    quiet_on_closed_output();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hailer: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch::dispatch(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailer: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// A reader that stops early (`hailer run --json ... | head -1`) closes our standard output, and
/// the standard library's print macros panic on the next write. That is no failure of the
/// command: leave quietly with 0 instead of a panic message and 101. Every other panic keeps the
/// usual report.
fn quiet_on_closed_output() {
    let usual = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if is_closed_output(message) {
            std::process::exit(0);
        }
        usual(info);
    }));
}

/// Whether a panic message is the print macros' report of a closed standard output.
fn is_closed_output(message: &str) -> bool {
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_closed_standard_output_is_quiet() {
        assert!(super::is_closed_output(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
        assert!(!super::is_closed_output(
            "failed printing to stdout: No space left"
        ));
        assert!(!super::is_closed_output("index out of bounds"));
    }
}
