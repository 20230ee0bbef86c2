//! `hailer`'s command line.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "hailer",
    version,
    about = "Chat with your own data files; the analysis runs in a local notebook kernel.",
    after_help = "Examples:\n  \
        hailer                           chat with your data in this workspace\n  \
        hailer demo                      a tour with sample data, no API key needed\n  \
        hailer init                      set up a workspace in this folder\n  \
        hailer config check              list what is wrong with hailer.toml\n  \
        hailer trust                     review and apply a cloned workspace's programs and endpoints\n  \
        hailer exec -c 'print(6*7)'      run code in the workspace's kernel\n  \
        hailer mcp                       the kernel and tools for another agent (MCP)\n  \
        hailer run \"what drove March?\"   ask one question, print the answer\n  \
        hailer cancel                    cancel the turn running in this workspace\n  \
        hailer open                      chat in the browser\n  \
        hailer kernel build              build the docker kernel's image here\n  \
        hailer daemon status             show the background daemon (starts it if needed)\n  \
        hailer daemon logs -f            follow the daemon's log\n  \
        hailer completions bash > ~/.local/share/bash-completion/completions/hailer"
)]
pub(crate) struct Cli {
    /// The workspace folder (default: found from the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
    /// The configuration file (default: hailer.toml in the workspace).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Agree to run, with the unsafe-local runtime, notebooks a docker kernel wrote here (review
    /// them first; an interactive start asks instead).
    #[arg(long, global = true)]
    pub run_sandbox_notebooks: bool,
    /// Seconds one run of code may take in the session this command starts or joins, from 1
    /// to 86400 (over `exec_timeout_secs` under [kernel], default 300). Long reads also
    /// finish sooner lazily: `pl.scan_csv` or DuckDB read only what the answer needs.
    #[arg(long, global = true, value_name = "SECS",
          value_parser = clap::value_parser!(u64).range(1..=hailer_protocol::MAX_EXEC_TIMEOUT_SECS))]
    pub exec_timeout: Option<u64>,
    /// Show everything: the client's and a daemon it starts log at DEBUG (over HAILER_LOG_LEVEL
    /// and [hailer] log_level), and kernel jobs show pip's, uv's and Docker's own output live.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// With no command: start a new conversation instead of resuming the stored one (`hailer
    /// --new` is `hailer notebook --new`).
    #[arg(long)]
    pub new: bool,
    /// With no command: the chat (`hailer notebook` with its defaults).
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Chat with the workspace's session in this terminal (the default command).
    Notebook {
        /// Do not open a browser.
        #[arg(long)]
        no_browser: bool,
        /// Start a new conversation instead of resuming the stored one.
        #[arg(long)]
        new: bool,
        /// Line-oriented chat: no colours, no cursor control (automatic when not a terminal).
        #[arg(long)]
        plain: bool,
        /// The kernel runtime for a new session: docker, sandbox or unsafe-local.
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
        /// The kernel alone, no chat: print its link, follow its log; Ctrl+C stops and removes
        /// it. When it ends otherwise, say why and exit with its code.
        #[arg(long, conflicts_with = "plain")]
        foreground: bool,
    },
    /// A tour with sample data and a scripted model: no API key needed. Leaves a workspace with
    /// the notebook it made.
    Demo {
        /// The folder to make the demo workspace in (new or empty); default: a new temporary one.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
        /// The kernel runtime: docker (the default, when Docker and the kernel image are here)
        /// or unsafe-local (runs notebook code as you: say so to use it).
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
    },
    /// The daemon, its sessions and their kernels, and this workspace's settings.
    Status {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check the configuration, notebook, key, kernel, Docker, image and data folder; exits 1
    /// on any failure. Starts no kernel and calls no model (but see --probe).
    Doctor {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Start (or use) the workspace's kernel and test its isolation from inside: one line
        /// per probe, exit 1 on any FAIL.
        #[arg(long)]
        probe: bool,
    },
    /// The workspace's audit trail: every run of code, cell written, page fetched, notebook
    /// copied back, kernel start and stop (newest last).
    Audit {
        #[command(subcommand)]
        action: Option<AuditAction>,
        /// Only records since a duration ago (30m, 2h, 7d) or a date (2026-12-01T10:30, UTC).
        #[arg(long, value_name = "DURATION|DATE")]
        since: Option<String>,
        /// Only the records of this turn.
        #[arg(long, value_name = "ID")]
        turn: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Set up a workspace here: hailer.toml, notebooks/, data/, .config/hailer/, .hailer/.
    Init {
        /// Rewrite hailer.toml (only that file) even if it exists.
        #[arg(long)]
        force: bool,
        /// The kernel runtime to write: docker (isolated, the default) or unsafe-local.
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
    },
    /// Agree to the settings of this workspace's hailer.toml that run programs on this machine,
    /// widen what the kernel reaches, use folders outside the workspace or decide where your
    /// keys go. It lists them and asks first. Until then a session starts without them; a
    /// change to one of them asks again for that one.
    Trust {
        /// List those settings and whether they apply; change nothing.
        #[arg(long, conflicts_with_all = ["revoke", "yes"])]
        show: bool,
        /// Withdraw the agreement.
        #[arg(long, conflicts_with = "yes")]
        revoke: bool,
        /// Agree without asking (for scripts; read the list `--show` prints first).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Inspect the workspace's configuration.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Run Python in the workspace's kernel and print its output (nothing goes to the model).
    #[command(group(clap::ArgGroup::new("source").args(["code", "file"])))]
    Exec {
        /// The code to run.
        #[arg(short = 'c', value_name = "CODE")]
        code: Option<String>,
        /// A file of code to run; `-` reads standard input.
        #[arg(value_name = "FILE")]
        file: Option<std::path::PathBuf>,
        /// The notebook whose kernel runs it (default: the active one).
        #[arg(long)]
        notebook: Option<String>,
        /// Seconds the run may take, from 1 to 86400 (one day).
        #[arg(long, value_name = "SECS",
              value_parser = clap::value_parser!(u64).range(1..=hailer_protocol::MAX_EXEC_TIMEOUT_SECS))]
        timeout: Option<u64>,
        /// The kernel runtime for a new session: docker, sandbox or unsafe-local.
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
    },
    /// Serve the workspace's kernel and tools to another agent over MCP (standard input and
    /// output): its runs are isolated, audited and left in the notebook like the chat's.
    Mcp {
        /// The kernel runtime for a new session: docker, sandbox or unsafe-local.
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
    },
    /// Ask one question and print the answer as it streams, with no terminal interface.
    Run {
        /// The question.
        question: String,
        /// Print every event as a JSON line instead of the answer.
        #[arg(long)]
        json: bool,
        /// Start a new conversation instead of resuming the stored one.
        #[arg(long)]
        new: bool,
        /// The kernel runtime for a new session: docker, sandbox or unsafe-local.
        #[arg(long, value_name = "RUNTIME")]
        kernel: Option<String>,
    },
    /// Cancel the turn running in this workspace's session, whichever client started it (a
    /// `hailer run`, the chat, the page); its running code stops. Exits 1 when none runs.
    Cancel,
    /// Keep a provider's API key in the OS credential store (or a key file only you can read).
    ///
    /// Type the key at the hidden prompt, or pipe it in: `printenv KEY | hailer login openai`.
    /// A key in the provider's environment variable still wins over the stored one.
    Login {
        /// The provider id from hailer.toml (default: the configured model's provider).
        provider: Option<String>,
    },
    /// Forget a provider's stored API key.
    Logout {
        /// The provider id from hailer.toml (default: the configured model's provider).
        provider: Option<String>,
    },
    /// Open the chat page in the browser, signed in, on the workspace's session.
    Open {
        /// Print the signed link instead of starting a browser.
        #[arg(long)]
        print: bool,
    },
    /// Prepare and manage the notebook kernel.
    Kernel {
        #[command(subcommand)]
        action: KernelAction,
    },
    /// Manage the background daemon, hailerd.
    Daemon {
        #[command(subcommand)]
        action: DaemonAction,
    },
    /// Print a shell completion script.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum DaemonAction {
    /// Start hailerd if it is not running.
    Start,
    /// Stop hailerd; its sessions end and their notebooks are saved.
    Stop,
    /// Show hailerd's pid, port, uptime and counters (starts it if needed).
    Status {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print hailerd's log.
    Logs {
        /// How many lines from the end.
        #[arg(short = 'n', long, default_value_t = 50)]
        lines: usize,
        /// Keep printing new lines as they are written.
        #[arg(short, long)]
        follow: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigAction {
    /// List every problem of the configuration; exits 1 when one is fatal.
    Check {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum KernelAction {
    /// Build the docker kernel's image here, through Docker, from the recipe inside Hailer.
    ///
    /// The packages come from PyPI, or from the mirror in this machine's pip settings (pip's
    /// configuration files and PIP_* variables, else uv's), which reach only the image's build
    /// stage and are never printed. --pip-config replaces that; --no-host-config turns it off.
    #[command(after_help = "Examples:\n  \
        hailer kernel build\n  \
        hailer kernel build --tag hailer-kernel:company --base-image registry.example/python:3.13-slim --pip-config company-pip.ini --no-cache\n  \
        hailer kernel build --context ./kernel-context --dry-run")]
    Build(BuildArgs),
    /// Download the kernel image this workspace uses and check its kernel contract.
    ///
    /// By default that is the image the release publishes for this Hailer's kernel contract
    /// (linux/amd64 and linux/arm64); `image` under [kernel] or HAILER_KERNEL_IMAGE names another.
    Pull,
    /// Print this Hailer's kernel contract, the image its sessions use and the base image a
    /// build starts from.
    Contract {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Remove every kernel container and network of this workspace, whichever session started
    /// them; this daemon's session of the workspace ends first and copies its notebooks back.
    Stop,
    /// Create the unsafe-local kernel's Python environment now instead of at the first start.
    InstallLocal {
        /// The Python 3.11+ to build it from.
        #[arg(long, value_name = "PATH")]
        python: Option<std::path::PathBuf>,
        /// Install offline from this folder of wheels.
        #[arg(long, value_name = "DIR")]
        wheelhouse: Option<std::path::PathBuf>,
    },
}

/// `hailer kernel build`'s options.
#[derive(Debug, Default, clap::Args)]
pub(crate) struct BuildArgs {
    /// The image name (default: image under [kernel], else the published image's name).
    #[arg(long, value_name = "NAME")]
    pub tag: Option<String>,
    /// The base image: Linux with Python 3.12+ (venv and ensurepip) as python3 (default:
    /// base_image under [kernel], HAILER_KERNEL_BASE_IMAGE, else the official python:*-slim).
    #[arg(long, value_name = "IMAGE")]
    pub base_image: Option<String>,
    /// A pip configuration file for the build, instead of this machine's settings.
    #[arg(long, value_name = "FILE")]
    pub pip_config: Option<std::path::PathBuf>,
    /// A PEM CA bundle pip should trust during the build.
    #[arg(long, value_name = "FILE")]
    pub pip_cert: Option<std::path::PathBuf>,
    /// Do not look for this machine's pip and uv index settings.
    #[arg(long)]
    pub no_host_config: bool,
    /// Install offline from this folder of wheels (nothing is downloaded).
    #[arg(long, value_name = "DIR")]
    pub wheelhouse: Option<std::path::PathBuf>,
    /// Install every package again instead of reusing Docker's cached layers.
    #[arg(long)]
    pub no_cache: bool,
    /// With --dry-run: write the build context to this new or empty folder.
    #[arg(long, value_name = "DIR", requires = "dry_run")]
    pub context: Option<std::path::PathBuf>,
    /// Build nothing: write the context (--context) and print the docker build command.
    #[arg(long, requires = "context")]
    pub dry_run: bool,
}

/// `hailer audit` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum AuditAction {
    /// Check the hash chain: exits 1 naming the line that was changed or follows a removal.
    Verify,
}
