//! `hailer`'s command line.

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "hailer",
    version,
    about = "Chat with your own data files; the analysis runs in a local notebook kernel.",
    after_help = "Examples:\n  \
        hailer init                      set up a workspace in this folder\n  \
        hailer daemon status             show the background daemon (starts it if needed)\n  \
        hailer daemon logs -f            follow the daemon's log\n  \
        hailer completions bash > ~/.local/share/bash-completion/completions/hailer"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
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
pub enum DaemonAction {
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
