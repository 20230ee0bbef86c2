//! Helpers for the end-to-end tests: the built binaries, a hermetic Hailer home, and a hailerd
//! started in it.

#![warn(missing_docs)]

pub mod bins;
pub mod browser;
pub mod daemon;
pub mod docker_image;
pub mod gateway;
pub mod job_log;
pub mod kernel_code;
pub mod kernel_envs;
pub mod live;
pub mod long_chat;
pub mod marimo_floor;
pub mod mcp_client;
pub mod notebook_cases;
pub mod prereqs;
pub mod relay;
pub mod running;
pub mod system;
pub mod timed_run;
pub mod tmux;
pub mod workspace;

pub use daemon::TestDaemon;
pub use tmux::TmuxPane;
pub use workspace::TestWorkspace;

/// A loopback port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|error| panic!("no free loopback port: {error}"))
}

/// What a finished command printed: its standard output, then its standard error.
pub fn output_text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// One row of the table `scripts/bench.sh` prints: what is measured, our figure, the floor
/// measured in the same run (`-` when the target is absolute) and the target, each figure a
/// number and its unit (`12.3 ms`). Printed as a tab-separated line that starts with `BENCH`.
pub fn bench_row(figure: &str, ours: &str, floor: &str, target: &str) {
    println!("BENCH\t{figure}\t{ours}\t{floor}\t{target}");
}
