//! `hailer`, the thin client of hailerd.

mod cli;
mod commands;
mod daemon_client;
mod http;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use hailer_config::home::HailerHome;

use cli::{Cli, Command, DaemonAction};

fn main() -> ExitCode {
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
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailer: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Daemon { action } => {
            let home = HailerHome::from_env()?;
            match action {
                DaemonAction::Start => commands::daemon::start(&home).await?,
                DaemonAction::Stop => commands::daemon::stop(&home).await?,
                DaemonAction::Status { json } => commands::daemon::status(&home, json).await?,
                DaemonAction::Logs { lines, follow } => {
                    commands::daemon::logs(&home, lines, follow).await?;
                }
            }
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "hailer", &mut std::io::stdout());
        }
    }
    Ok(ExitCode::SUCCESS)
}
