//! Benchmark of the first answer on the default runtime, docker, in a new workspace made by
//! `hailer init` (the starter notebook, whose cells run when its kernel starts): a one-tool turn
//! (the scripted model asks for `marimo_execute` with Polars code that reads the workspace's CSV
//! file, then answers), timed to the first byte of the answer. The daemon is running, as it
//! usually is; the session and its kernel container are not. Two ways a user meets it:
//!
//! * attached: a client attaches to the workspace (`POST /v1/sessions` and its event stream, as
//!   the page and `hailer chat` do, which starts the kernel container at once) and the question
//!   is sent after the time a fast typist takes to type it (10 characters a second); timed from
//!   sending it. When the kernel is not ready by then, the rest of its start is in the figure.
//!   This is the figure with the target.
//! * one-shot: a cold `hailer run`, the question sent with no client attached before it; timed
//!   from the command's start. The kernel's whole start is in it (with a real model it overlaps
//!   the model's first reply; the scripted one answers at once). Printed beside it, no target.
//!
//! The floor, measured side by side in the same run, is a plain `docker run --rm` of the same
//! image running the same Polars code on the same file, mounted read-only, with no network:
//! what a user who runs the code in a container by hand waits for. The target is at most twice
//! that floor.
//!
//! Needs the kernel image of this contract (built from the test wheelhouse when missing, the way
//! a user builds it). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-docker-first-answer --samples 5`.
//! Exits 1 when the attached median is over the target.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::LiveSession;
use serde_json::json;

const ANSWER: &str = "The file has 3 rows.";
const QUESTION: &str = "How many rows has the sales file?";
/// How fast the attached user types the question: faster than nearly anyone.
const TYPED_PER_SECOND: f64 = 10.0;
/// The code both sides run: the agent through the kernel, the floor through `python -c`.
const CODE: &str = "import polars as pl\nprint(pl.read_csv('/work/data/sales.csv').height)";
const CSV: &str = "region,amount\nnorth,10\nsouth,20\neast,30\n";
/// The target: the first answer within this many times a plain `docker run`.
const TARGET_RATIO: f64 = 2.0;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// One cold `hailer run`: the time to the answer's first byte.
fn first_answer(workspace: &TestWorkspace) -> Duration {
    let run = hailer_tests::timed_run::hailer_run(workspace, QUESTION);
    assert!(run.printed.contains(ANSWER), "{}", run.printed);
    run.first_byte
}

/// What an attached client sees: (attach to the kernel idle, question sent to the answer's
/// first text). The question is sent once the typing time has passed since the attach.
async fn attached_first_answer(workspace: &TestWorkspace) -> (Duration, Duration) {
    let attached = Instant::now();
    let mut live = LiveSession::start(workspace).await;
    let mut kernel_events = live.subscribe().await;
    let typing = Duration::from_secs_f64(QUESTION.len() as f64 / TYPED_PER_SECOND);
    let kernel_idle = tokio::spawn(async move {
        loop {
            let (at, event, _) = hailer_tests::live::until(&mut kernel_events, "kernel").await;
            assert_ne!(event["status"], "failed", "{event}");
            if event["status"] == "idle" {
                return at;
            }
        }
    });
    tokio::time::sleep_until((attached + typing).into()).await;
    let asked = Instant::now();
    live.ask(QUESTION).await;
    let (answered, first, _) = live.until("textDelta").await;
    assert!(
        ANSWER.starts_with(first["delta"].as_str().unwrap_or("?")),
        "{first}"
    );
    let idle = kernel_idle.await.unwrap();
    (idle - attached, answered - asked)
}

/// One plain `docker run` of [`CODE`] on the same data file: (time, what it printed).
fn plain_docker_run(image: &str, data: &std::path::Path) -> Duration {
    let started = Instant::now();
    let output = Command::new("docker")
        .args([
            "run",
            "--rm",
            "--network",
            "none",
            "--user",
            "1000:1000",
            "-v",
        ])
        .arg(format!("{}:/work/data:ro", data.display()))
        .args([image, "python", "-c", CODE])
        .output()
        .unwrap();
    let took = started.elapsed();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && printed.trim() == "3",
        "the plain docker run failed: {printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    took
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(5);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let image = runtime.block_on(hailer_tests::docker_image::kernel_image());
    let mut script = Script::new();
    // Two turns a sample: the one-shot run, then the attached client's question.
    for _ in 0..samples * 2 {
        script = script
            .reply(Reply::tool_call("marimo_execute", json!({"code": CODE})))
            .reply(Reply::text(ANSWER).in_deltas(3));
    }
    let model = runtime.block_on(ScriptedModel::start(script)).unwrap();

    // One warm-up of each side, unmeasured: the engine's first container start after the image
    // was made reads its layers from disk.
    let warm = TestWorkspace::docker();
    warm.write("data/sales.csv", CSV);
    plain_docker_run(&image, &warm.path().join("data"));

    let mut floors = Vec::new();
    let mut firsts = Vec::new();
    let mut attached = Vec::new();
    let mut readies = Vec::new();
    for _ in 0..samples {
        // Fresh workspaces each time: their sessions and kernel containers start cold.
        let workspace = TestWorkspace::docker().answered_by(&model.base_url());
        workspace.write("data/sales.csv", CSV);
        assert!(workspace.hailer(&["daemon", "start"]).status.success());
        let data = workspace.path().join("data");
        // The data folder must be readable by the container's user, as `hailer init` leaves it.
        floors.push(plain_docker_run(&image, &data));
        firsts.push(first_answer(&workspace));
        let _ = workspace.hailer(&["daemon", "stop"]);

        let workspace = TestWorkspace::docker().answered_by(&model.base_url());
        workspace.write("data/sales.csv", CSV);
        // The daemon runs before the client attaches, as for the one-shot run.
        assert!(workspace.hailer(&["daemon", "start"]).status.success());
        let (ready, answer) = runtime.block_on(attached_first_answer(&workspace));
        readies.push(ready);
        attached.push(answer);
        let _ = workspace.hailer(&["daemon", "stop"]);
    }
    let floor = median(floors);
    let first = median(firsts);
    let attached = median(attached);
    let ready = median(readies);
    let typing = Duration::from_secs_f64(QUESTION.len() as f64 / TYPED_PER_SECOND);
    let ratio = attached.as_secs_f64() / floor.as_secs_f64();
    let cold_ratio = first.as_secs_f64() / floor.as_secs_f64();
    println!("first answer of a one-tool Polars turn, docker kernel, starter notebook");
    println!("({samples} samples, medians; image {image})");
    println!(
        "  floor: plain `docker run` of the same code on the same file        {}",
        ms(floor)
    );
    println!(
        "  attached: attach to the kernel idle                                {}",
        ms(ready)
    );
    println!(
        "  attached: question sent {:.1} s after the attach, to the answer     {}",
        typing.as_secs_f64(),
        ms(attached)
    );
    println!(
        "  ratio                                                              {ratio:.2}   target <= {TARGET_RATIO}"
    );
    println!(
        "  one-shot: cold `hailer run`, start to the answer's first byte      {}",
        ms(first)
    );
    println!(
        "  ratio                                                              {cold_ratio:.2}"
    );
    hailer_tests::bench_row(
        "first answer, docker kernel started on attach, question typed (floor: plain docker run)",
        &ms(attached),
        &ms(floor),
        "<= 2 x floor",
    );
    hailer_tests::bench_row(
        "docker kernel: attach to idle, starter notebook (floor: plain docker run)",
        &ms(ready),
        &ms(floor),
        "-",
    );
    hailer_tests::bench_row(
        "first answer, one-shot hailer run, cold docker kernel (floor: plain docker run)",
        &ms(first),
        &ms(floor),
        "- (the start overlaps the model's first reply)",
    );
    if ratio > TARGET_RATIO {
        eprintln!(
            "the docker first answer of an attached client is {ratio:.2} x a plain docker run, \
             over {TARGET_RATIO}"
        );
        std::process::exit(1);
    }
}
