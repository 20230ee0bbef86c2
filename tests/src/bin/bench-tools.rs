//! Benchmark of the agent's notebook tools on a 100-cell notebook: `notebook_cells` and
//! `marimo_status`, called by the scripted model through hailerd with a real unsafe-local kernel.
//!
//! Each call is timed from its `toolCallStarted` event to its `toolCallFinished` event as the
//! client receives them, so the figure includes the daemon's event delivery.
//!
//! Two rounds: with the kernel at rest (the model answers each call after 100 ms, still faster
//! than any real model, so the previous run has finished in the kernel), which is what the target
//! is about; and back to back (the model answers at once, so a call can queue behind the end of
//! the previous run, which marimo finishes about 50 ms after its last output).
//!
//! Needs `HAILER_TEST_VENV` (scripts/test-prereqs.sh). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-tools --samples 9`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

const CELLS: usize = 100;
/// The budget each tool call should stay within.
const TARGET: Duration = Duration::from_millis(50);
/// How long the model takes to answer in the round with the kernel at rest.
const REST: Duration = Duration::from_millis(100);

fn notebook_with_cells(count: usize) -> String {
    let mut text = String::from(
        "import marimo\n\n__generated_with = \"0.24.2\"\napp = marimo.App(width=\"medium\")\n\n",
    );
    for index in 0..count {
        text.push_str(&format!(
            "\n@app.cell\ndef _():\n    value_{index} = {index} * 2\n    value_{index}\n    return (value_{index},)\n\n"
        ));
    }
    text.push_str("\nif __name__ == \"__main__\":\n    app.run()\n");
    text
}

fn samples_from_args() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|arg| arg == "--samples")
        .and_then(|at| args.get(at + 1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(9)
}

/// Prints a round's figures; `target` is what its table row holds up against the median.
fn summary(name: &str, when: &str, target: &str, mut samples: Vec<Duration>) -> bool {
    samples.sort();
    let median = samples[samples.len() / 2];
    hailer_tests::bench_row(
        &format!("{name} on a {CELLS}-cell notebook, {when}"),
        &format!("{:.1} ms", median.as_secs_f64() * 1000.0),
        "-",
        target,
    );
    let max = samples[samples.len() - 1];
    println!(
        "{name:<15} median {:>6.1} ms  min {:>6.1} ms  max {:>6.1} ms  ({} calls, {CELLS} cells)",
        median.as_secs_f64() * 1000.0,
        samples[0].as_secs_f64() * 1000.0,
        max.as_secs_f64() * 1000.0,
        samples.len()
    );
    median <= TARGET
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // Everything runs in one turn, which makes at most 40 model calls: 1 + 4 per sample + 1.
    let samples = samples_from_args().min(9);
    let mut script = Script::new()
        // A first call waits for the kernel and the notebook's cells; it is not counted.
        .reply(Reply::tool_call("notebook_cells", json!({})));
    for round in [REST, Duration::ZERO] {
        for _ in 0..samples {
            script = script
                .reply(Reply::tool_call("notebook_cells", json!({})).delay_headers(round))
                .reply(Reply::tool_call("marimo_status", json!({})).delay_headers(round));
        }
    }
    let script = script.reply(Reply::text("Done."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted_with_env(&model.base_url(), "chat", true, Vec::new());
    workspace.write("notebooks/analysis.py", &notebook_with_cells(CELLS));

    let mut child = workspace
        .command(&["run", "--json", "Benchmark the tools."])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut started: HashMap<String, (String, Instant)> = HashMap::new();
    let mut timings: HashMap<String, Vec<Duration>> = HashMap::new();
    let mut first = true;
    let mut cells_seen = 0;
    for line in stdout.lines() {
        let Ok(envelope) = serde_json::from_str::<Value>(&line.unwrap()) else {
            continue;
        };
        let event = &envelope["event"];
        let call_id = event["callId"].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str() {
            Some("toolCallStarted") => {
                let name = event["name"].as_str().unwrap_or_default().to_owned();
                started.insert(call_id, (name, Instant::now()));
            }
            Some("toolCallFinished") => {
                let (name, at) = started.remove(&call_id).unwrap();
                if name == "notebook_cells" {
                    cells_seen += 1;
                }
                if first {
                    first = false;
                    continue;
                }
                timings.entry(name).or_default().push(at.elapsed());
            }
            _ => {}
        }
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "the turn failed");
    assert_eq!(cells_seen, 2 * samples + 1);
    let requests = model.requests();
    let listing = requests
        .last()
        .unwrap()
        .conversation()
        .iter()
        .rev()
        .find(|message| {
            message["role"] == "tool"
                && message["content"]
                    .as_str()
                    .unwrap_or("")
                    .contains("value_99")
        })
        .is_some();
    assert!(listing, "notebook_cells listed all 100 cells");

    println!(
        "bench-tools: {samples} samples per tool on a {CELLS}-cell notebook (target <= {} ms)",
        TARGET.as_millis()
    );
    let mut cells = timings.remove("notebook_cells").unwrap();
    let mut status = timings.remove("marimo_status").unwrap();
    let cells_back_to_back = cells.split_off(samples);
    let status_back_to_back = status.split_off(samples);
    println!(
        "with the kernel at rest (the model answers after {} ms):",
        REST.as_millis()
    );
    let target = format!("<= {} ms", TARGET.as_millis());
    let cells_ok = summary("notebook_cells", "kernel at rest", &target, cells);
    let status_ok = summary("marimo_status", "kernel at rest", &target, status);
    // No target: this round shows how long a call waits for marimo to end the previous run.
    println!("back to back (the model answers at once):");
    let waits = "- (waits for the previous run)";
    summary("notebook_cells", "back to back", waits, cells_back_to_back);
    summary("marimo_status", "back to back", waits, status_back_to_back);
    if !(cells_ok && status_ok) {
        println!("(above the target)");
    }
}
