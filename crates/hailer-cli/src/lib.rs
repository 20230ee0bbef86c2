//! `hailer`, the thin client of hailerd. The `hailer` package's `hailer` binary is [`main`].

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

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
mod output;
mod session_client;

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

pub use hailer_render::render_answer;

/// The `hailer` program.
pub fn main() -> ExitCode {
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
    match output::settle(runtime.block_on(dispatch::dispatch(cli))) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailer: {error:#}");
            ExitCode::FAILURE
        }
    }
}
