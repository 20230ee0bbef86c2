//! Benchmark of a run through MCP: the time from the official Python MCP client's
//! `marimo_execute` call to its result, over `hailer mcp` (standard input and output) and over
//! the daemon's Streamable HTTP route, beside the same code through `hailer exec` (the whole
//! command), all on one warm docker kernel. The code is Polars on a small CSV file. Target: at
//! most 1.1 × `hailer exec`.
//!
//! Needs the test prerequisites (scripts/test-prereqs.sh --base-image) and the kernel image.
//! Run it on release builds: `cargo build --release --bins && target/release/bench-mcp`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;

const CODE: &str =
    "import polars as pl\nprint(pl.read_csv(DATA_DIR / 'sales.csv')['amount'].sum())";

fn samples_from_args() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|arg| arg == "--samples")
        .and_then(|at| args.get(at + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(9)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// The seconds of each timed call the client printed.
fn timed(workspace: &TestWorkspace, args: &[&str]) -> Vec<Duration> {
    let printed = hailer_tests::mcp_client::run(workspace, args);
    printed["seconds"]
        .as_array()
        .unwrap_or_else(|| panic!("no timings: {printed}"))
        .iter()
        .map(|seconds| Duration::from_secs_f64(seconds.as_f64().unwrap()))
        .collect()
}

fn main() {
    let samples = samples_from_args().max(3);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(hailer_tests::docker_image::kernel_image());
    let workspace = TestWorkspace::docker();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\nsouth,32\n");
    // A warm kernel, with Polars imported once, for every way in.
    let warm = workspace.hailer(&["exec", "-c", CODE]);
    assert!(warm.status.success(), "{warm:?}");
    assert_eq!(String::from_utf8_lossy(&warm.stdout).trim(), "42");

    let mut exec = Vec::new();
    for _ in 0..samples {
        let started = Instant::now();
        let ran = workspace.hailer(&["exec", "-c", CODE]);
        exec.push(started.elapsed());
        assert!(ran.status.success(), "{ran:?}");
    }
    let count = samples.to_string();
    let hailer = hailer_tests::bins::path("hailer");
    let stdio = timed(
        &workspace,
        &["--time", &count, "stdio", hailer.to_str().unwrap(), CODE],
    );
    let sessions = runtime.block_on(workspace.get_json("/v1/sessions"));
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let (_, base, token) = workspace.api();
    let url = format!("{base}/v1/sessions/{id}/mcp");
    let http = timed(&workspace, &["--time", &count, "http", &url, &token, CODE]);
    let _ = workspace.hailer(&["daemon", "stop"]);

    let (exec, stdio, http) = (median(exec), median(stdio), median(http));
    println!(
        "MCP benchmark: Polars on a CSV file in a warm docker kernel, {samples} runs each, medians"
    );
    println!("  hailer exec (the whole command)    {}", ms(exec));
    println!("  MCP call over hailer mcp (stdio)   {}", ms(stdio));
    println!("  MCP call over Streamable HTTP      {}", ms(http));
    let target = "<= 1.1 x hailer exec";
    hailer_tests::bench_row(
        "MCP call over stdio, call to result",
        &ms(stdio),
        &ms(exec),
        target,
    );
    hailer_tests::bench_row(
        "MCP call over HTTP, call to result",
        &ms(http),
        &ms(exec),
        target,
    );
}
