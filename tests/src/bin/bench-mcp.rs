//! Benchmark of a run through MCP against the same run through `hailer exec`, like with like:
//! each figure is the time from a request to its result, measured in one Python process on one
//! warm docker kernel. The MCP figures are the official Python MCP client's `marimo_execute`
//! call, over `hailer mcp` (standard input and output) and over the daemon's Streamable HTTP
//! route; the exec figure is the request `hailer exec` sends (`POST /v1/sessions/{id}/exec`),
//! made from the same client process. The whole `hailer exec` command is printed beside them for
//! reference. The code is Polars on a small CSV file. Target: each MCP figure at most 1.1 × the
//! exec figure; the program exits with 1 when one is above.
//!
//! Needs the test prerequisites (scripts/test-prereqs.sh --base-image) and the kernel image.
//! Release builds give the figures to quote: `cargo build --release --bins &&
//! target/release/bench-mcp` (`--samples N`, 9 by default).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;

/// The most an MCP call may take, as a multiple of the same run through `hailer exec`.
const TARGET: f64 = 1.1;

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
    let sessions = runtime.block_on(workspace.get_json("/v1/sessions"));
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let (_, base, token) = workspace.api();
    let exec_url = format!("{base}/v1/sessions/{id}/exec");
    let mcp_url = format!("{base}/v1/sessions/{id}/mcp");
    let hailer = hailer_tests::bins::path("hailer");
    let hailer = hailer.to_str().unwrap();
    // Two rounds, each way in turn, so a slow spell of the machine falls on all of them.
    let (mut route, mut stdio, mut http) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..2 {
        route.extend(timed(
            &workspace,
            &["--time", &count, "exec", &exec_url, &token, CODE],
        ));
        stdio.extend(timed(
            &workspace,
            &["--time", &count, "stdio", hailer, CODE],
        ));
        http.extend(timed(
            &workspace,
            &["--time", &count, "http", &mcp_url, &token, CODE],
        ));
    }
    let _ = workspace.hailer(&["daemon", "stop"]);

    let (exec, route, stdio, http) = (median(exec), median(route), median(stdio), median(http));
    let ratio = |mcp: Duration| mcp.as_secs_f64() / route.as_secs_f64();
    let build = if cfg!(debug_assertions) {
        "debug build"
    } else {
        "release build"
    };
    println!(
        "MCP benchmark ({build}): Polars on a CSV file in a warm docker kernel, request to \
         result, medians of {} runs each",
        samples * 2
    );
    println!("  hailer exec's request (POST .../exec)   {}", ms(route));
    println!(
        "  MCP call over hailer mcp (stdio)        {}  ({:.2} x)",
        ms(stdio),
        ratio(stdio)
    );
    println!(
        "  MCP call over Streamable HTTP           {}  ({:.2} x)",
        ms(http),
        ratio(http)
    );
    println!(
        "  for reference: the whole hailer exec command, {samples} runs   {}",
        ms(exec)
    );
    let target = "<= 1.1 x hailer exec's request";
    hailer_tests::bench_row(
        "MCP call over stdio, request to result",
        &ms(stdio),
        &ms(route),
        target,
    );
    hailer_tests::bench_row(
        "MCP call over HTTP, request to result",
        &ms(http),
        &ms(route),
        target,
    );
    let over: Vec<&str> = [("stdio", stdio), ("Streamable HTTP", http)]
        .into_iter()
        .filter(|(_, mcp)| ratio(*mcp) > TARGET)
        .map(|(way, _)| way)
        .collect();
    if !over.is_empty() {
        eprintln!(
            "bench-mcp: the MCP call over {} takes more than {TARGET} x hailer exec's request",
            over.join(" and ")
        );
        std::process::exit(1);
    }
}
