//! Benchmark of the terminal chat's start: from starting `hailer` to an editable prompt, and to
//! the panel of the attached session, with the daemon (and the workspace's session) already
//! running; and the client's memory once it is idle.
//!
//! Run it on release builds:
//! `cargo build --release -p hailer-cli -p hailerd -p hailer-tests --bins && target/release/bench-chat`.
//! Needs what the end-to-end tests need (`HAILER_TEST_VENV`, `HAILER_TEST_TMUX`). Prints medians
//! over `--samples` runs (default 9) next to the floor: a pane whose program prints the same
//! prompt at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::{Duration, Instant};

use hailer_tests::{TestWorkspace, TmuxPane};

const PROMPT: &str = "›";
const WAIT: Duration = Duration::from_secs(60);

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

/// Time from spawning the pane until `needle` is on its screen (polled every millisecond or so).
fn time_until(pane: &TmuxPane, started: Instant, needle: &str) -> Duration {
    loop {
        if pane.screen().contains(needle) {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < WAIT,
            "no {needle:?} within {WAIT:?}:\n{}",
            pane.screen()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(9);
    let workspace = TestWorkspace::unsafe_local();

    // The daemon and the workspace's session are up before the first sample.
    let warm = TmuxPane::spawn(&workspace.command(&["notebook", "--no-browser"]));
    warm.wait_for("Web access:", WAIT);
    warm.keys(&["C-d"]);
    warm.wait_for("Bye.", WAIT);
    drop(warm);

    let mut floor = Vec::new();
    let mut prompt = Vec::new();
    let mut panel = Vec::new();
    let mut rss = Vec::new();
    let mut peak = Vec::new();
    for _ in 0..samples {
        let mut printer = Command::new("sh");
        printer.args(["-c", &format!("printf '{PROMPT} '; sleep 30")]);
        let started = Instant::now();
        let pane = TmuxPane::spawn(&printer);
        floor.push(time_until(&pane, started, PROMPT));
        drop(pane);

        let command = workspace.command(&["notebook", "--no-browser"]);
        let started = Instant::now();
        let pane = TmuxPane::spawn(&command);
        prompt.push(time_until(&pane, started, PROMPT));
        panel.push(time_until(&pane, started, "Web access:"));
        std::thread::sleep(Duration::from_millis(300));
        let pid = pane.pid().expect("the chat runs");
        rss.push(status_kib(pid, "VmRSS:"));
        peak.push(status_kib(pid, "VmHWM:"));
        pane.keys(&["C-d"]);
        pane.wait_for("Bye.", WAIT);
    }
    rss.sort_unstable();
    peak.sort_unstable();
    let floor = median(floor);
    let prompt = median(prompt);
    println!("hailer chat start, daemon and session running ({samples} samples, medians)");
    println!(
        "  start to editable prompt: {} (floor {}: a pane printing the prompt at once; net {}; target <= 100 ms)",
        ms(prompt),
        ms(floor),
        ms(prompt.saturating_sub(floor))
    );
    println!("  start to panel (attached): {}", ms(median(panel)));
    hailer_tests::bench_row(
        "hailer chat start to editable prompt",
        &ms(prompt),
        &ms(floor),
        "<= 100 ms",
    );
    hailer_tests::bench_row(
        "hailer chat idle RSS",
        &format!("{:.1} MB", rss[rss.len() / 2] as f64 / 1024.0),
        "-",
        "<= 15 MB",
    );
    println!(
        "  client memory when idle: RSS {:.1} MiB, peak {:.1} MiB (target <= 15 MB)",
        rss[rss.len() / 2] as f64 / 1024.0,
        peak[peak.len() / 2] as f64 / 1024.0
    );
}
