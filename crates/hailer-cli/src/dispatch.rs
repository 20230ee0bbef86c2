//! From the parsed command line to the command: one small function per `hailer` command, each
//! given the [`Context`] of the global flags.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use hailer_config::Runtime;

use crate::chat;
use crate::cli::{AuditAction, BuildArgs, Cli, Command, ConfigAction, DaemonAction, KernelAction};
use crate::commands;
use crate::context::Context;
use crate::logging;
use crate::session_client::SessionFlags;

/// Runs the command the command line names (the chat when it names none).
pub(crate) async fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let context = Context::new(&cli);
    start(&context);
    let command = cli.command.unwrap_or(Command::Notebook {
        no_browser: false,
        new: cli.new,
        plain: false,
        kernel: None,
        foreground: false,
    });
    let ctx = &context;
    match command {
        Command::Notebook {
            no_browser,
            new,
            plain,
            kernel,
            foreground,
        } => notebook(ctx, kernel, new, plain, no_browser, foreground).await,
        Command::Demo { dir, kernel } => demo(ctx, dir, kernel).await,
        Command::Status { json } => commands::status::run(ctx.home()?, ctx.overrides(), json).await,
        Command::Doctor { json, probe } => doctor(ctx, json, probe).await,
        Command::Audit {
            action,
            since,
            turn,
            json,
        } => audit(ctx, action, since, turn, json),
        Command::Init { force, kernel } => init(ctx, force, kernel).await,
        Command::Exec {
            code,
            file,
            notebook,
            timeout,
            kernel,
        } => exec(ctx, code, file, notebook, timeout, kernel).await,
        Command::Mcp { kernel } => mcp(ctx, kernel).await,
        Command::Trust { show, revoke, yes } => trust(ctx, show, revoke, yes),
        Command::Config {
            action: ConfigAction::Check { json },
        } => commands::config::check(ctx.overrides(), json),
        Command::Daemon { action } => daemon(ctx, action).await,
        Command::Run {
            question,
            json,
            new,
            kernel,
        } => run(ctx, &question, json, new, kernel).await,
        Command::Cancel => commands::cancel::run(ctx.home()?, ctx.overrides()).await,
        Command::Login { provider } => login(ctx, provider).await,
        Command::Logout { provider } => logout(ctx, provider).await,
        Command::Open { print } => open(ctx, print).await,
        Command::Kernel { action } => kernel(ctx, action).await,
        Command::Completions { shell } => completions(shell),
    }
}

/// The client's logging, and its memory closed to the user's other processes.
fn start(ctx: &Context) {
    if let Ok(inputs) = hailer_config::LoadInputs::from_process(ctx.logging_overrides()) {
        logging::init(logging::resolve(&inputs));
    }
    // The shell's whole environment, keys included, is this process's: closed to the user's
    // other processes (an unsafe-local kernel among them) as hailerd's is.
    if let Err(error) = hailer_platform::forbid_inspection() {
        tracing::warn!(%error, "hailer could not make itself non-dumpable");
    }
}

/// `hailer notebook` (and `hailer` alone): the chat, or with `--foreground` the kernel alone.
async fn notebook(
    ctx: &Context,
    kernel: Option<String>,
    new: bool,
    plain: bool,
    no_browser: bool,
    foreground: bool,
) -> anyhow::Result<ExitCode> {
    if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
        return Ok(code);
    }
    let home = ctx.home()?;
    let flags = SessionFlags {
        new_thread: new,
        ..ctx.session_flags_with(kernel)
    };
    if foreground {
        return commands::foreground::run(home, &flags, !no_browser).await;
    }
    let options = chat::ChatOptions {
        flags,
        plain,
        no_browser,
        verbose: ctx.verbose(),
    };
    chat::run(home, options).await
}

/// `hailer demo`.
async fn demo(
    ctx: &Context,
    dir: Option<PathBuf>,
    kernel: Option<String>,
) -> anyhow::Result<ExitCode> {
    if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
        return Ok(code);
    }
    let home = ctx.home()?;
    commands::demo::run(home, dir, runtime_of(kernel.as_deref())).await
}

/// `hailer doctor`, with `--probe` the isolation probes.
async fn doctor(ctx: &Context, json: bool, probe: bool) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    let flags = ctx.session_flags();
    if probe {
        return commands::doctor::probe::run(home, &flags, json).await;
    }
    commands::doctor::run(home, &flags, ctx.overrides(), json).await
}

/// `hailer audit`, `hailer audit verify`.
fn audit(
    ctx: &Context,
    action: Option<AuditAction>,
    since: Option<String>,
    turn: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    match action {
        Some(AuditAction::Verify) => commands::audit::verify(ctx.overrides()),
        None => {
            let filter = commands::audit::Filter { since, turn };
            commands::audit::show(ctx.overrides(), &filter, json)
        }
    }
}

/// `hailer init`, in `--workspace` or the current folder.
async fn init(ctx: &Context, force: bool, kernel: Option<String>) -> anyhow::Result<ExitCode> {
    if let Some(code) = refuse_bad_kernel(kernel.as_deref()) {
        return Ok(code);
    }
    let kernel = runtime_of(kernel.as_deref());
    let workspace = match ctx.workspace() {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir()?,
    };
    commands::init::run(ctx.home()?, &workspace, force, kernel).await?;
    Ok(ExitCode::SUCCESS)
}

/// `hailer exec`: `-c CODE`, a file, or `-`/nothing for standard input.
async fn exec(
    ctx: &Context,
    code: Option<String>,
    file: Option<PathBuf>,
    notebook: Option<String>,
    timeout: Option<u64>,
    kernel: Option<String>,
) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    let source = match (code, file) {
        (Some(code), _) => commands::exec::Source::Inline(code),
        (None, Some(path)) if path.as_os_str() == "-" => commands::exec::Source::Stdin,
        (None, Some(path)) => commands::exec::Source::File(path),
        (None, None) => commands::exec::Source::Stdin,
    };
    let flags = ctx.session_flags_with(kernel);
    commands::exec::run(home, &flags, source, notebook, timeout).await
}

/// `hailer mcp`.
async fn mcp(ctx: &Context, kernel: Option<String>) -> anyhow::Result<ExitCode> {
    let flags = ctx.session_flags_with(kernel);
    commands::mcp::run(ctx.home()?, flags).await
}

/// `hailer trust`, `--show`, `--revoke`.
fn trust(ctx: &Context, show: bool, revoke: bool, yes: bool) -> anyhow::Result<ExitCode> {
    let action = match (show, revoke) {
        (true, _) => commands::trust::Action::Show,
        (_, true) => commands::trust::Action::Revoke,
        _ => commands::trust::Action::Grant { yes },
    };
    commands::trust::run(ctx.home()?, ctx.overrides(), action)
}

/// `hailer daemon start|stop|status|logs`.
async fn daemon(ctx: &Context, action: DaemonAction) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    match action {
        DaemonAction::Start => commands::daemon::start(home).await?,
        DaemonAction::Stop => commands::daemon::stop(home).await?,
        DaemonAction::Status { json } => commands::daemon::status(home, json).await?,
        DaemonAction::Logs { lines, follow } => commands::daemon::logs(home, lines, follow).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `hailer run QUESTION`.
async fn run(
    ctx: &Context,
    question: &str,
    json: bool,
    new: bool,
    kernel: Option<String>,
) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    let flags = SessionFlags {
        new_thread: new,
        ..ctx.session_flags_with(kernel)
    };
    commands::run::run(home, &flags, question, json, ctx.verbose()).await
}

/// `hailer login [PROVIDER]`.
async fn login(ctx: &Context, provider: Option<String>) -> anyhow::Result<ExitCode> {
    commands::login::login(ctx.home()?, &ctx.session_flags(), provider).await?;
    Ok(ExitCode::SUCCESS)
}

/// `hailer logout [PROVIDER]`.
async fn logout(ctx: &Context, provider: Option<String>) -> anyhow::Result<ExitCode> {
    commands::login::logout(ctx.home()?, &ctx.session_flags(), provider).await?;
    Ok(ExitCode::SUCCESS)
}

/// `hailer open`, with `--print` the link alone.
async fn open(ctx: &Context, print: bool) -> anyhow::Result<ExitCode> {
    commands::open::open(ctx.home()?, &ctx.session_flags(), print).await?;
    Ok(ExitCode::SUCCESS)
}

/// `hailer kernel install-local|build|pull|contract|stop`.
async fn kernel(ctx: &Context, action: KernelAction) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    let verbose = ctx.verbose();
    match action {
        KernelAction::InstallLocal { python, wheelhouse } => {
            commands::kernel::install_local(home, python, wheelhouse, verbose).await?;
        }
        KernelAction::Build(args) => build(ctx, args).await?,
        KernelAction::Pull => commands::kernel::pull(home, ctx.overrides(), verbose).await?,
        KernelAction::Contract { json } => commands::kernel::contract(&ctx.overrides(), json)?,
        KernelAction::Stop => return commands::kernel::stop(home, ctx.overrides()).await,
    }
    Ok(ExitCode::SUCCESS)
}

/// `hailer kernel build`.
async fn build(ctx: &Context, args: BuildArgs) -> anyhow::Result<()> {
    commands::kernel::build(ctx.home()?, ctx.overrides(), args, ctx.verbose()).await
}

/// `hailer completions SHELL`.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    clap_complete::generate(shell, &mut Cli::command(), "hailer", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// The runtime a valid `--kernel` names ([`refuse_bad_kernel`] has refused the others).
fn runtime_of(flag: Option<&str>) -> Option<Runtime> {
    flag.and_then(|flag| hailer_config::parse_kernel_flag(flag).ok())
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
