//! Benchmark of the first answer on a user's default path: `hailer run` with a one-tool turn (the
//! scripted model asks for `marimo_execute`, then answers) in a new workspace (`hailer init`'s
//! starter notebook, whose cells run when its kernel starts) whose unsafe-local kernel is cold,
//! from the command's start to the first byte of the answer on its standard output. The managed
//! environment is the one `hailer kernel install-local` made, found again through `PATH` on every
//! start as a user's is. The floor, measured side by side in the same run, is plain marimo from
//! that same environment doing the same work by hand: spawn to `/health`, one `/sse`
//! kernel-ready, `instantiate` with the cells run, and the same code through
//! `/api/kernel/execute` to its `done`. The daemon is running (started before the clock, as it
//! usually is); the session and its kernel are not. The same cold turn on the sandbox runtime
//! (the same environment, started in the sandbox) is measured in the same run, against the
//! unsafe-local one; the benchmark exits 1 when it takes more than 1.1 times as long.
//!
//! Needs the test wheelhouse (scripts/test-prereqs.sh) and a Python 3.11+ on `PATH`. Run it on
//! release builds: `cargo build --release --bins && target/release/bench-first-answer --samples 7`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::marimo_floor::first_execute;
use serde_json::json;

const ANSWER: &str = "The kernel says 42.";

/// The sandbox's cold first answer may take at most this many times the unsafe-local one; the
/// benchmark exits 1 above it.
const SANDBOX_TARGET: f64 = 1.1;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// One cold `hailer run`: (first answer byte, command exit).
fn first_answer(workspace: &TestWorkspace) -> (Duration, Duration) {
    let run = hailer_tests::timed_run::hailer_run(workspace, "What is six times seven?");
    assert!(run.printed.contains(ANSWER), "{}", run.printed);
    (run.first_byte, run.done)
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(7);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut script = Script::new();
    // Each sample answers twice: once on unsafe-local, once on the sandbox.
    for _ in 0..samples * 2 {
        script = script
            .reply(Reply::tool_call(
                "marimo_execute",
                json!({"code": "print(6*7)"}),
            ))
            .reply(Reply::text(ANSWER).in_deltas(3));
    }
    let model = runtime.block_on(ScriptedModel::start(script)).unwrap();

    // One Hailer home for every sample, as a user has: its managed environment is made once.
    let home = tempfile::tempdir().unwrap();
    let on_default_path = |workspace: &mut TestWorkspace| {
        workspace.env.retain(|(name, _)| {
            name != hailer_tests::kernel_envs::VARIABLE && name != "HAILER_HOME"
        });
        workspace
            .env
            .push(("HAILER_HOME".to_owned(), home.path().display().to_string()));
    };
    let mut setup = TestWorkspace::scripted(&model.base_url());
    on_default_path(&mut setup);
    // Trust is kept in the user's config folder, which is the shared home's now.
    setup.trust();
    let wheelhouse = hailer_tests::prereqs::wheelhouse().display().to_string();
    let started = Instant::now();
    let installed = setup.hailer(&["kernel", "install-local", "--wheelhouse", &wheelhouse]);
    let printed = String::from_utf8_lossy(&installed.stdout).into_owned();
    assert!(installed.status.success(), "install-local: {printed}");
    let venv = printed
        .lines()
        .find_map(|line| {
            line.split_once(": ")
                .filter(|(head, _)| head.contains("the environment for kernel contract"))
        })
        .map(|(_, dir)| std::path::PathBuf::from(dir.trim()))
        .unwrap_or_else(|| panic!("install-local named no environment: {printed}"));
    let python = venv.join("bin/python");
    println!(
        "managed environment made by `hailer kernel install-local` in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        printed
            .lines()
            .find(|line| line.starts_with("Creating"))
            .unwrap_or("reused")
    );
    let _ = setup.hailer(&["daemon", "stop"]);

    let mut floors = Vec::new();
    let mut firsts = Vec::new();
    let mut dones = Vec::new();
    let mut sandboxed = Vec::new();
    for _ in 0..samples {
        // A fresh workspace each time: its session and kernel start cold.
        let mut workspace = TestWorkspace::scripted(&model.base_url());
        on_default_path(&mut workspace);
        workspace.trust();
        assert!(workspace.hailer(&["daemon", "start"]).status.success());
        floors.push(first_execute(workspace.path(), &python, "print(6*7)"));
        let (first, done) = first_answer(&workspace);
        firsts.push(first);
        dones.push(done);
        let _ = workspace.hailer(&["daemon", "stop"]);

        let mut workspace = TestWorkspace::scripted(&model.base_url());
        on_default_path(&mut workspace);
        let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
        let toml = toml.replacen("runtime = \"unsafe-local\"", "runtime = \"sandbox\"", 1);
        assert!(toml.contains("runtime = \"sandbox\""), "{toml}");
        workspace.write("hailer.toml", &toml);
        workspace.trust();
        assert!(workspace.hailer(&["daemon", "start"]).status.success());
        sandboxed.push(first_answer(&workspace).0);
        let _ = workspace.hailer(&["daemon", "stop"]);
    }

    let floor = median(floors);
    let first = median(firsts);
    let done = median(dones);
    println!(
        "first answer of a one-tool turn, cold unsafe-local kernel, starter notebook ({samples} samples, medians{})",
        if cfg!(debug_assertions) {
            "; a debug build, not optimized"
        } else {
            ""
        }
    );
    println!(
        "  floor: marimo spawn, kernel-ready, cells run, execute {}",
        ms(floor)
    );
    println!(
        "  hailer run: start to the answer's first byte          {}",
        ms(first)
    );
    println!(
        "  ratio                                                 {:.2}   target <= 1.1",
        first.as_secs_f64() / floor.as_secs_f64()
    );
    println!(
        "  hailer run: start to exit                             {}",
        ms(done)
    );
    let sandboxed = median(sandboxed);
    let sandbox_ratio = sandboxed.as_secs_f64() / first.as_secs_f64();
    println!(
        "  sandbox: start to the answer's first byte             {}",
        ms(sandboxed)
    );
    println!(
        "  ratio to unsafe-local                                 {sandbox_ratio:.2}   target <= 1.1"
    );
    hailer_tests::bench_row(
        "first answer, cold unsafe-local kernel, starter notebook",
        &ms(first),
        &ms(floor),
        "<= 1.1 x floor",
    );
    hailer_tests::bench_row(
        "first answer, cold sandbox kernel, against unsafe-local",
        &ms(sandboxed),
        &ms(first),
        "<= 1.1 x unsafe-local",
    );
    if sandbox_ratio > SANDBOX_TARGET {
        eprintln!(
            "the sandbox's first answer took {sandbox_ratio:.2} times the unsafe-local one; the \
             target is at most {SANDBOX_TARGET}"
        );
        std::process::exit(1);
    }
}
