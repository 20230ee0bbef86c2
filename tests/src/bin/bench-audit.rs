//! Benchmark of the audit trail's cost per run of code: 200 `POST /v1/sessions/{id}/exec` of
//! `pass` on a workspace that keeps the trail and 200 on one with `[hailer] audit = false`,
//! interleaved in one run (unsafe-local kernels, empty notebooks), with both medians and their
//! difference. Target: the difference is at most 1 ms.
//!
//! Needs `HAILER_TEST_VENV` (scripts/test-prereqs.sh). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-audit`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

const RUNS: usize = 200;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

/// A workspace with a live session and its exec URL, the token, and a warm kernel.
struct Target {
    workspace: TestWorkspace,
    exec_url: String,
    token: String,
}

async fn target(client: &reqwest::Client, audit: bool) -> Target {
    let workspace = TestWorkspace::unsafe_local();
    workspace.write(
        "notebooks/analysis.py",
        hailer_tests::marimo_floor::EMPTY_NOTEBOOK,
    );
    if !audit {
        let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
        workspace.write(
            "hailer.toml",
            &toml.replacen("[hailer]\n", "[hailer]\naudit = false\n", 1),
        );
    }
    assert!(workspace.hailer(&["daemon", "start"]).status.success());
    let (_, base, token) = workspace.api();
    let started: Value = client
        .post(format!("{base}/v1/sessions"))
        .bearer_auth(&token)
        .json(&json!({"cwd": workspace.path(), "client": "api"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = started["session"]["id"].as_str().unwrap().to_owned();
    let target = Target {
        exec_url: format!("{base}/v1/sessions/{id}/exec"),
        token,
        workspace,
    };
    for _ in 0..10 {
        once(client, &target).await;
    }
    target
}

async fn once(client: &reqwest::Client, target: &Target) -> Duration {
    let started = Instant::now();
    let ran: Value = client
        .post(&target.exec_url)
        .bearer_auth(&target.token)
        .json(&json!({"code": "pass"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(ran["success"], true, "{ran}");
    took
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = reqwest::Client::new();
    let (with, without) = runtime.block_on(async {
        let with = target(&client, true).await;
        let without = target(&client, false).await;
        let mut with_samples = Vec::new();
        let mut without_samples = Vec::new();
        for _ in 0..RUNS {
            with_samples.push(once(&client, &with).await);
            without_samples.push(once(&client, &without).await);
        }
        let trail = std::fs::read_to_string(with.workspace.path().join(".hailer/audit.jsonl"))
            .unwrap_or_default();
        let records = trail
            .lines()
            .filter(|line| line.contains("\"code\":\"pass\""))
            .count();
        assert!(records >= RUNS, "only {records} runs were recorded");
        assert!(
            !without
                .workspace
                .path()
                .join(".hailer/audit.jsonl")
                .exists(),
            "audit = false still wrote a trail"
        );
        (median(with_samples), median(without_samples))
    });
    println!("audit trail benchmark: {RUNS} execs of `pass` each, interleaved, medians");
    println!("  with the audit trail      {}", ms(with));
    println!("  with audit = false        {}", ms(without));
    hailer_tests::bench_row(
        "exec of `pass` with the audit trail",
        &ms(with),
        &ms(without),
        "<= floor + 1 ms",
    );
    println!(
        "  difference                {}   target <= 1 ms",
        if with >= without {
            ms(with - without)
        } else {
            format!("-{}", ms(without - with))
        }
    );
}
