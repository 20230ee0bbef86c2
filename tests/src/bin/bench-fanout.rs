//! Benchmark of a session's event fan-out: 50 WebSocket clients on one session while the scripted
//! model streams text deltas at 2,000 per second through a real turn.
//!
//! For every delta, each client's arrival is compared with the earliest arrival of that delta at
//! any client (the latency the fan-out adds), and with the model's schedule (delta `i` leaves the
//! model `i / rate` after the first). The same turn with one client runs first, as the baseline
//! measured in the same run.
//!
//! Needs `HAILER_TEST_VENV` (scripts/test-prereqs.sh). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-fanout`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::{Events, LiveSession};

const RATE: u64 = 2_000;
const DELTAS: usize = 6_000;

struct Arrivals {
    /// Per client, the arrival of each delta, in order.
    per_client: Vec<Vec<Instant>>,
}

async fn collect(mut events: Events) -> Vec<Instant> {
    let mut arrivals = Vec::with_capacity(DELTAS);
    while let Some((at, event)) = events.recv().await {
        match event["type"].as_str() {
            Some("textDelta") => arrivals.push(at),
            Some("turnFinished" | "turnFailed" | "turnCancelled") => break,
            Some("lagged") => panic!("a client lagged: {event}"),
            _ => {}
        }
    }
    arrivals
}

async fn run_turn(live: &LiveSession, clients: usize) -> Arrivals {
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let events = live.subscribe().await;
        tasks.push(tokio::spawn(collect(events)));
    }
    live.ask("Stream a long answer").await;
    let mut per_client = Vec::new();
    for task in tasks {
        per_client.push(task.await.unwrap());
    }
    Arrivals { per_client }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn report(label: &str, arrivals: &Arrivals) -> (Duration, Duration) {
    let clients = arrivals.per_client.len();
    for (index, client) in arrivals.per_client.iter().enumerate() {
        assert_eq!(client.len(), DELTAS, "client {index} missed deltas");
    }
    let first: Vec<Instant> = (0..DELTAS)
        .map(|i| arrivals.per_client.iter().map(|c| c[i]).min().unwrap())
        .collect();
    let mut spread = Vec::with_capacity(DELTAS * clients);
    let mut lateness = Vec::with_capacity(DELTAS * clients);
    let start = first[0];
    for client in &arrivals.per_client {
        for (i, at) in client.iter().enumerate() {
            spread.push(at.duration_since(first[i]));
            let scheduled = start + Duration::from_secs_f64(i as f64 / RATE as f64);
            lateness.push(at.saturating_duration_since(scheduled));
        }
    }
    spread.sort();
    lateness.sort();
    let span = first[DELTAS - 1].duration_since(start);
    println!(
        "{label}: {clients} client(s), {DELTAS} deltas in {:.2} s ({:.0} deltas/s per client)",
        span.as_secs_f64(),
        DELTAS as f64 / span.as_secs_f64()
    );
    println!(
        "  fan-out added latency (vs the first client to get each delta): p50 {} p99 {} max {}",
        ms(percentile(&spread, 0.5)),
        ms(percentile(&spread, 0.99)),
        ms(*spread.last().unwrap())
    );
    println!(
        "  lateness against the model's schedule: p50 {} p99 {} max {}",
        ms(percentile(&lateness, 0.5)),
        ms(percentile(&lateness, 0.99)),
        ms(*lateness.last().unwrap())
    );
    (percentile(&spread, 0.99), percentile(&lateness, 0.99))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let text: String = (0..DELTAS).map(|i| format!("w{i} ")).collect();
    let reply = || {
        Reply::text(text.clone())
            .in_deltas(DELTAS)
            .deltas_per_second(RATE)
    };
    let model = ScriptedModel::start(Script::new().reply(reply()).reply(reply()))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let live = LiveSession::start(&workspace).await;

    let single = run_turn(&live, 1).await;
    let (_, single_late) = report("baseline", &single);
    let many = run_turn(&live, 50).await;
    let (spread_p99, many_late) = report("fan-out", &many);
    println!(
        "p99 fan-out added latency {} (target 5 ms); p99 lateness 50 clients / 1 client = {:.2}",
        ms(spread_p99),
        many_late.as_secs_f64() / single_late.as_secs_f64().max(1e-6)
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
