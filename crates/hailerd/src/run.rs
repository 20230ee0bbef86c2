//! What `hailerd` does around [`crate::serve`]: become the one daemon, log, listen, advertise
//! itself in the runtime file, and clean up on the way out.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use hailer_config::HailerHome;
use hailer_protocol::RuntimeFile;
use tokio::net::TcpListener;

use crate::daemon_state::DaemonConfig;
use crate::singleton::{self, Acquired};
use crate::token::AccessToken;
use crate::{VERSION, runtime_file};
use hailer_redact::Redactor;

/// Command-line settings of `hailerd`.
#[derive(Debug, Clone, clap::Parser)]
#[command(
    name = "hailerd",
    version,
    about = "Hailer's local daemon (started for you by `hailer`)"
)]
pub struct RunArgs {
    /// Port on 127.0.0.1; 0 lets the system choose a free one.
    #[arg(long, env = "HAILER_DAEMON_PORT", default_value_t = 0)]
    pub port: u16,
    /// Exit after this many seconds with no sessions and no clients; 0 never exits on its own.
    #[arg(long, env = "HAILER_DAEMON_IDLE_EXIT_SECS", default_value_t = 1800)]
    pub idle_exit_secs: u64,
    /// Seconds between heartbeats on event streams.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub heartbeat_secs: u64,
}

/// The `hailerd` program: its arguments, a two-worker runtime, [`run`]. As `hailerd
/// sandbox-exec ...` it is the sandbox runtime's launcher instead, which must start before any
/// thread does.
pub fn main() -> ExitCode {
    use clap::Parser as _;
    #[cfg(target_os = "linux")]
    if std::env::args_os().nth(1).as_deref()
        == Some(std::ffi::OsStr::new(hailer_sandbox::LAUNCHER_SUBCOMMAND))
    {
        let code = hailer_sandbox::run_launcher(std::env::args_os().skip(2).collect());
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let args = RunArgs::parse();
    if let Err(error) = crate::hardening::ensure_minimal_environment() {
        eprintln!("hailerd: {error:#}");
        return ExitCode::FAILURE;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hailerd: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("hailerd: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the daemon until it is asked to stop. A second daemon exits at once with success.
pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let home = HailerHome::from_env()?;
    runtime_file::ensure_private_dir(&home.runtime_dir)
        .with_context(|| format!("cannot create {}", home.runtime_dir.display()))?;
    // The token goes into this folder: refuse to start when others could read it.
    runtime_file::check_private(&home.runtime_dir)?;

    // A daemon that was just asked to stop may still hold the lock for a moment after removing
    // its runtime file: the one started right after it waits for it instead of giving up.
    let runtime_path = home.runtime_file();
    let serving = || runtime_path.exists();
    let lock = match singleton::acquire_past_a_leaving_holder(
        &home.daemon_lock(),
        serving,
        singleton::LEAVING_PATIENCE,
    )
    .await?
    {
        Acquired::Lock(lock) => lock,
        Acquired::HeldByAnother => {
            // Standard output may be closed by whoever started this run: nothing to say then.
            let mut out = std::io::stdout().lock();
            let _ = match runtime_file::read(&home.runtime_file()) {
                Ok(Some(file)) => writeln!(
                    out,
                    "hailerd is already running (pid {}, port {}).",
                    file.pid, file.port
                ),
                _ => writeln!(out, "hailerd is already running."),
            };
            return Ok(ExitCode::SUCCESS);
        }
    };

    let redactor = Redactor::with_env(std::env::vars());
    let token = AccessToken::generate();
    redactor.add_secret(token.expose());
    let _log_guard = crate::logging::init(&home.log_dir(), redactor.clone())?;
    crate::hardening::forbid_inspection();

    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, args.port)))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{}", args.port))?;
    let port = listener.local_addr()?.port();
    // Listen for SIGTERM and SIGINT before anyone can learn the pid: a signal sent as soon as the
    // runtime file exists must stop the daemon the orderly way, not kill it.
    let stop = stop_signal();
    let pid = std::process::id();
    runtime_file::write(
        &runtime_path,
        &RuntimeFile {
            pid,
            port,
            token: token.expose().to_owned(),
            version: VERSION.to_owned(),
            started_at: hailerd_kernel::unix_now(),
        },
    )
    .with_context(|| format!("cannot write {}", runtime_path.display()))?;
    tracing::info!(pid, port, version = VERSION, "hailerd started");

    // Kernels of a daemon that was killed still run; end them without delaying the start.
    let data_dir = home.data_dir.clone();
    tokio::spawn(async move {
        let ended = hailerd_kernel::reap_local_leftovers(&data_dir).await;
        if ended > 0 {
            tracing::info!(ended, "ended kernels left by an earlier daemon");
        }
        if let Some(removal) = hailerd_kernel::reap_docker_leftovers().await
            && !removal.removed.is_empty()
        {
            tracing::info!(
                removed = ?removal.removed,
                "removed docker kernels whose session is gone"
            );
        }
    });

    let config = DaemonConfig {
        token,
        idle_exit: (args.idle_exit_secs > 0).then(|| Duration::from_secs(args.idle_exit_secs)),
        heartbeat: Duration::from_secs(args.heartbeat_secs),
        redactor,
        folders: hailerd_session::HailerFolders {
            data: home.data_dir.clone(),
            config: home.config_dir.clone(),
            kernel_envs: home.kernel_envs_dir.clone(),
        },
    };
    let served = crate::serve(listener, config, stop).await;

    if let Err(error) = runtime_file::remove_if_ours(&runtime_path, pid) {
        tracing::warn!(%error, "could not remove the runtime file");
    }
    drop(lock);
    tracing::info!("hailerd stopped");
    served.context("the server failed")?;
    Ok(ExitCode::SUCCESS)
}

/// Listens for a stop request (SIGTERM or SIGINT; Ctrl+C, Ctrl+Break or the console closing on
/// Windows) from now on; the future resolves on the first of them.
fn stop_signal() -> impl Future<Output = ()> + Send + 'static {
    let requested = hailer_platform::stop_requested();
    async move {
        let what = requested.await;
        tracing::info!("{what}");
    }
}
