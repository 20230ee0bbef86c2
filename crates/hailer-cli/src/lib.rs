//! `hailer`, the thin client of hailerd. The `hailer` package's `hailer` binary is [`main`].

#![warn(missing_docs)]

mod browser;
mod chat;
mod cli;
mod commands;
mod daemon_client;
mod docker_probe;
mod http;
mod logging;
mod model_check;
mod session_client;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use hailer_config::home::HailerHome;

use cli::{Cli, Command, ConfigAction, DaemonAction, KernelAction};

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
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailer: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let verbose = cli.verbose;
    if let Ok(inputs) = hailer_config::LoadInputs::from_process(hailer_config::Overrides {
        workspace: cli.workspace.clone(),
        config: cli.config.clone(),
        log_level: verbose.then(|| "DEBUG".to_owned()),
        ..Default::default()
    }) {
        logging::init(logging::resolve(&inputs));
    }
    // The shell's whole environment, keys included, is this process's: closed to the user's
    // other processes (an unsafe-local kernel among them) as hailerd's is.
    if let Err(error) = hailer_platform::inspection::forbid_inspection() {
        tracing::warn!(%error, "hailer could not make itself non-dumpable");
    }
    // The global flags every command that starts or attaches a session passes on.
    let session_flags = session_client::SessionFlags {
        workspace: cli.workspace.clone(),
        config: cli.config.clone(),
        run_sandbox_notebooks: cli.run_sandbox_notebooks,
        exec_timeout: cli.exec_timeout,
        ..Default::default()
    };
    let command = cli.command.unwrap_or(Command::Notebook {
        no_browser: false,
        new: cli.new,
        plain: false,
        kernel: None,
        foreground: false,
    });
    match command {
        Command::Notebook {
            no_browser,
            new,
            plain,
            kernel,
            foreground,
        } => {
            if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
                return Ok(code);
            }
            let home = HailerHome::from_env()?;
            if foreground {
                let flags = session_client::SessionFlags {
                    kernel,
                    new_thread: new,
                    ..session_flags
                };
                return commands::foreground::run(&home, &flags, !no_browser).await;
            }
            let options = chat::ChatOptions {
                flags: session_client::SessionFlags {
                    kernel,
                    new_thread: new,
                    ..session_flags
                },
                plain,
                no_browser,
                verbose,
            };
            return chat::run(&home, options).await;
        }
        Command::Demo { dir, kernel } => {
            if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
                return Ok(code);
            }
            let home = HailerHome::from_env()?;
            let kernel = kernel
                .as_deref()
                .and_then(|flag| hailer_config::parse_kernel_flag(flag).ok());
            return commands::demo::run(&home, dir, kernel).await;
        }
        Command::Status { json } => {
            let home = HailerHome::from_env()?;
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            return commands::status::run(&home, overrides, json).await;
        }
        Command::Doctor { json, probe } => {
            let home = HailerHome::from_env()?;
            if probe {
                return commands::doctor::probe::run(&home, &session_flags, json).await;
            }
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            return commands::doctor::run(&home, &session_flags, overrides, json).await;
        }
        Command::Audit {
            action,
            since,
            turn,
            json,
        } => {
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            return match action {
                Some(cli::AuditAction::Verify) => commands::audit::verify(overrides),
                None => {
                    commands::audit::show(overrides, &commands::audit::Filter { since, turn }, json)
                }
            };
        }
        Command::Init { force, kernel } => {
            if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
                return Ok(code);
            }
            let kernel = kernel
                .as_deref()
                .and_then(|flag| hailer_config::parse_kernel_flag(flag).ok());
            let workspace = match cli.workspace {
                Some(dir) => dir,
                None => std::env::current_dir()?,
            };
            commands::init::run(&HailerHome::from_env()?, &workspace, force, kernel).await?;
        }
        Command::Exec {
            code,
            file,
            notebook,
            timeout,
            kernel,
        } => {
            let home = HailerHome::from_env()?;
            let source = match (code, file) {
                (Some(code), _) => commands::exec::Source::Inline(code),
                (None, Some(path)) if path.as_os_str() == "-" => commands::exec::Source::Stdin,
                (None, Some(path)) => commands::exec::Source::File(path),
                (None, None) => commands::exec::Source::Stdin,
            };
            let flags = session_client::SessionFlags {
                kernel,
                ..session_flags
            };
            return commands::exec::run(&home, &flags, source, notebook, timeout).await;
        }
        Command::Mcp { kernel } => {
            let flags = session_client::SessionFlags {
                kernel,
                ..session_flags
            };
            return commands::mcp::run(&HailerHome::from_env()?, flags).await;
        }
        Command::Trust { show, revoke, yes } => {
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            let action = match (show, revoke) {
                (true, _) => commands::trust::Action::Show,
                (_, true) => commands::trust::Action::Revoke,
                _ => commands::trust::Action::Grant { yes },
            };
            return commands::trust::run(&HailerHome::from_env()?, overrides, action);
        }
        Command::Config {
            action: ConfigAction::Check { json },
        } => {
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            return commands::config::check(overrides, json);
        }
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
        Command::Run {
            question,
            json,
            new,
            kernel,
        } => {
            let home = HailerHome::from_env()?;
            let flags = session_client::SessionFlags {
                kernel,
                new_thread: new,
                ..session_flags
            };
            return commands::run::run(&home, &flags, &question, json, verbose).await;
        }
        Command::Cancel => {
            let home = HailerHome::from_env()?;
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            return commands::cancel::run(&home, overrides).await;
        }
        Command::Login { provider } => {
            let home = HailerHome::from_env()?;
            let flags = session_flags;
            commands::login::login(&home, &flags, provider).await?;
        }
        Command::Logout { provider } => {
            let home = HailerHome::from_env()?;
            let flags = session_flags;
            commands::login::logout(&home, &flags, provider).await?;
        }
        Command::Open { print } => {
            let home = HailerHome::from_env()?;
            let flags = session_flags;
            commands::open::open(&home, &flags, print).await?;
        }
        Command::Kernel { action } => {
            let home = HailerHome::from_env()?;
            let overrides = hailer_config::Overrides {
                workspace: cli.workspace,
                config: cli.config,
                ..Default::default()
            };
            match action {
                KernelAction::InstallLocal { python, wheelhouse } => {
                    commands::kernel::install_local(&home, python, wheelhouse, verbose).await?;
                }
                KernelAction::Build(args) => {
                    commands::kernel::build(&home, overrides, args, verbose).await?;
                }
                KernelAction::Pull => commands::kernel::pull(&home, overrides, verbose).await?,
                KernelAction::Contract { json } => commands::kernel::contract(&overrides, json)?,
                KernelAction::Stop => return commands::kernel::stop(&home, overrides).await,
            }
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "hailer", &mut std::io::stdout());
        }
    }
    Ok(ExitCode::SUCCESS)
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

/// Exit code 2 with the reason when `--kernel` names no runtime.
fn refuse_bad_kernel(flag: Option<&str>) -> Option<ExitCode> {
    let problem = hailer_config::parse_kernel_flag(flag?).err()?;
    eprintln!("hailer: {}", problem.message);
    if !problem.hint.is_empty() {
        eprintln!("  {}", problem.hint);
    }
    Some(ExitCode::from(2))
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
