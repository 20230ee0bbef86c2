//! Benchmark of the foundation: client start-up, daemon start-up and idle memory.
//!
//! Run it on release builds: `cargo build --release --bins && target/release/bench-foundation`.
//! It prints medians over `--samples` runs (default 21), next to the floor of spawning a
//! trivial process in the same run, and the targets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hailer_tests::daemon::{runtime_path, spawn, wait_for_runtime_file};
use hailer_tests::{bench_row, bins};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn time_command(
    samples: usize,
    program: &std::path::Path,
    args: &[&str],
    home: &std::path::Path,
) -> Duration {
    let runs = (0..samples)
        .map(|_| {
            let started = Instant::now();
            let status = Command::new(program)
                .args(args)
                .env("HAILER_HOME", home)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "{} {args:?} failed", program.display());
            started.elapsed()
        })
        .collect();
    median(runs)
}

/// Spawn to the first successful `/v1/daemon` answer.
fn daemon_start_to_serving(samples: usize) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..samples {
        let home = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let mut child = spawn(home.path(), &[]).unwrap();
        let file = wait_for_runtime_file(home.path(), child.id()).unwrap();
        loop {
            if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", file.port)) {
                use std::io::{Read, Write};
                let request = format!(
                    "GET /v1/daemon HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
                    file.port, file.token
                );
                stream.write_all(request.as_bytes()).unwrap();
                let mut reply = String::new();
                let _ = stream.read_to_string(&mut reply);
                if reply.starts_with("HTTP/1.1 200") {
                    break;
                }
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        times.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(500));
        rss.push(hailer_tests::system::resident_kib(child.id()));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(runtime_path(home.path()).exists());
    }
    rss.sort_unstable();
    (median(times), rss[rss.len() / 2])
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(21);
    let hailer = bins::path("hailer");
    let home = tempfile::tempdir().unwrap();

    let floor = time_command(samples, std::path::Path::new("/bin/true"), &[], home.path());
    let version = time_command(samples, &hailer, &["--version"], home.path());
    // Start the daemon once, then time status against it.
    time_command(1, &hailer, &["daemon", "start"], home.path());
    let status = time_command(samples, &hailer, &["daemon", "status"], home.path());
    time_command(1, &hailer, &["daemon", "stop"], home.path());
    let (serving, rss) = daemon_start_to_serving(samples.min(11));

    println!("foundation benchmark, {samples} samples, medians");
    println!("  spawn floor (/bin/true)         {}", ms(floor));
    println!(
        "  hailer --version                {}   target <= 10 ms",
        ms(version)
    );
    println!(
        "  hailer daemon status (running)  {}   target <= 10 ms",
        ms(status)
    );
    println!(
        "  hailerd spawn to serving        {}   target <= 50 ms",
        ms(serving)
    );
    println!(
        "  hailerd idle RSS                {:.1} MB   target <= 15 MB",
        rss as f64 / 1024.0
    );
    println!(
        "  ratios: version/floor {:.1}x, status/floor {:.1}x",
        version.as_secs_f64() / floor.as_secs_f64(),
        status.as_secs_f64() / floor.as_secs_f64()
    );
    let floor_ms = ms(floor);
    bench_row("hailer --version", &ms(version), &floor_ms, "<= 10 ms");
    bench_row(
        "hailer daemon status, daemon running",
        &ms(status),
        &floor_ms,
        "<= 10 ms",
    );
    bench_row(
        "hailerd spawn to serving",
        &ms(serving),
        &floor_ms,
        "<= 50 ms",
    );
    bench_row(
        "hailerd idle RSS",
        &format!("{:.1} MB", rss as f64 / 1024.0),
        "-",
        "<= 15 MB",
    );
}
