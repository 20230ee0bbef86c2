//! Benchmark of a session's event fan-out: 50 WebSocket clients on one session while the scripted
//! model streams text deltas at 2,000 per second through a real turn.
//!
//! The clients run in a process of their own (this binary again, with `--clients`), as real
//! clients would, so the daemon's side and the clients' side do not share one runtime. For every
//! delta, each client's arrival is compared with the earliest arrival of that delta at any client
//! (the latency the fan-out adds), and with the model's schedule (delta `i` leaves the model
//! `i / rate` after the first). The same turn with one client runs first, as the baseline
//! measured in the same run.
//!
//! Needs `HAILER_TEST_VENV` (scripts/test-prereqs.sh). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-fanout`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::LiveSession;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const RATE: u64 = 2_000;
const DELTAS: usize = 6_000;
const CLIENTS: usize = 50;

/// Connects `count` clients, says `ready`, records when each delta reaches each client, and
/// prints the figures.
async fn clients(base: String, token: String, id: String, count: usize) {
    let mut tasks = Vec::new();
    for _ in 0..count {
        let url = format!(
            "{}/v1/sessions/{id}/events",
            base.replace("http://", "ws://")
        );
        let mut request = url.into_client_request().unwrap();
        request.headers_mut().insert(
            "Authorization",
            HeaderValue::from_str(&format!("Bearer {token}")).unwrap(),
        );
        let (socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        tasks.push(tokio::spawn(collect(socket)));
    }
    println!("ready");
    std::io::stdout().flush().unwrap();
    let mut per_client = Vec::new();
    for task in tasks {
        per_client.push(task.await.unwrap());
    }
    let label = if count == 1 { "baseline" } else { "fan-out" };
    let (spread, late) = report(label, &per_client);
    println!("figures {} {}", spread.as_micros(), late.as_micros());
}

/// The arrival of every text delta, stamped before anything else is done with the frame.
async fn collect<S>(mut socket: S) -> Vec<Instant>
where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    let mut arrivals = Vec::with_capacity(DELTAS);
    while let Some(Ok(message)) = socket.next().await {
        let at = Instant::now();
        let Ok(text) = message.to_text() else {
            continue;
        };
        if text.contains(r#""type":"textDelta""#) {
            arrivals.push(at);
        } else if text.contains(r#""type":"lagged""#) {
            panic!("a client lagged: {text}");
        } else if ["turnFinished", "turnFailed", "turnCancelled"]
            .iter()
            .any(|end| text.contains(&format!(r#""type":"{end}""#)))
        {
            break;
        }
    }
    arrivals
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn report(label: &str, per_client: &[Vec<Instant>]) -> (Duration, Duration) {
    let clients = per_client.len();
    for (index, client) in per_client.iter().enumerate() {
        assert_eq!(client.len(), DELTAS, "client {index} missed deltas");
    }
    let first: Vec<Instant> = (0..DELTAS)
        .map(|i| per_client.iter().map(|c| c[i]).min().unwrap())
        .collect();
    let mut spread = Vec::with_capacity(DELTAS * clients);
    let mut lateness = Vec::with_capacity(DELTAS * clients);
    let start = first[0];
    for client in per_client {
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

/// Runs one turn with `count` clients in their own process; answers their p99 figures.
async fn run_turn(live: &LiveSession, count: usize) -> (Duration, Duration) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--clients",
            &live.base,
            &live.token,
            &live.id,
            &count.to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let ready = tokio::task::block_in_place(|| lines.next())
        .unwrap()
        .unwrap();
    assert_eq!(ready, "ready");
    live.ask("Stream a long answer").await;
    let mut figures = (Duration::ZERO, Duration::ZERO);
    tokio::task::block_in_place(|| {
        for line in lines {
            let line = line.unwrap();
            match line.strip_prefix("figures ") {
                Some(rest) => {
                    let mut parts = rest.split(' ').map(|n| n.parse::<u64>().unwrap());
                    figures = (
                        Duration::from_micros(parts.next().unwrap()),
                        Duration::from_micros(parts.next().unwrap()),
                    );
                }
                None => println!("{line}"),
            }
        }
    });
    assert!(child.wait().unwrap().success(), "the clients failed");
    figures
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--clients") {
        // The clients: one thread, as a small client process would have.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let count = args[4].parse().unwrap();
        runtime.block_on(clients(
            args[1].clone(),
            args[2].clone(),
            args[3].clone(),
            count,
        ));
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(orchestrate());
}

async fn orchestrate() {
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

    let (_, single_late) = run_turn(&live, 1).await;
    let (spread_p99, many_late) = run_turn(&live, CLIENTS).await;
    println!(
        "p99 fan-out added latency {} (target 5 ms); p99 lateness {CLIENTS} clients / 1 client = {:.2}",
        ms(spread_p99),
        many_late.as_secs_f64() / single_late.as_secs_f64().max(1e-6)
    );
    hailer_tests::bench_row(
        &format!("p99 fan-out added latency, {CLIENTS} clients"),
        &ms(spread_p99),
        "-",
        "<= 5 ms",
    );
    hailer_tests::bench_row(
        &format!("p99 lateness against the model, {CLIENTS} clients (floor: 1 client)"),
        &ms(many_late),
        &ms(single_late),
        "-",
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
