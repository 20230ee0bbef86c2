//! Benchmark of sessions with the unsafe-local kernel, measured side by side with marimo's own
//! floor in the same run.
//!
//! * session ready: `POST /v1/sessions` until the first `pass` has run, in a workspace as
//!   `hailer init` makes it (the starter notebook, whose cells run when the kernel starts), with
//!   the managed environment hailerd finds through `HAILER_KERNEL_ENVS`; against the floor of
//!   plain marimo from that same environment doing the same by hand: spawn to `/health`, one
//!   `/sse` kernel-ready, `instantiate` with the cells run, and `pass` to its `done`;
//! * `hailer exec -c pass` against a direct `curl` execute on the same marimo session.
//!
//! Needs the test prerequisites (scripts/test-prereqs.sh). Run it on release builds:
//! `cargo build --release --bins && target/release/bench-session --samples 7`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn http(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply
}

fn main() {
    let samples: usize = std::env::args()
        .skip_while(|arg| arg != "--samples")
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap_or(7);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let workspace = TestWorkspace::unsafe_local();
    let python = hailer_tests::kernel_envs::python();
    // Start the daemon once so its own start is not counted.
    assert!(workspace.hailer(&["daemon", "start"]).status.success());
    let (client, base, token) = workspace.api();

    let mut floors = Vec::new();
    let mut ours = Vec::new();
    for _ in 0..samples {
        floors.push(hailer_tests::marimo_floor::first_execute(
            workspace.path(),
            &python,
            "pass",
        ));
        let started = Instant::now();
        let id = runtime.block_on(async {
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
            let ran: Value = client
                .post(format!("{base}/v1/sessions/{id}/exec"))
                .bearer_auth(&token)
                .json(&json!({"code": "pass"}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(ran["success"], true, "{ran}");
            id
        });
        ours.push(started.elapsed());
        runtime.block_on(async {
            client
                .delete(format!("{base}/v1/sessions/{id}"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap();
        });
    }

    // Round trips on one live session.
    assert!(workspace.hailer(&["exec", "-c", "pass"]).status.success());
    let link: Value = runtime.block_on(async {
        let sessions: Value = client
            .get(format!("{base}/v1/sessions"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
        client
            .post(format!("{base}/v1/sessions/{id}/notebooks/open"))
            .bearer_auth(&token)
            .json(&json!({"notebook": "analysis"}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let link = link["link"].as_str().unwrap();
    let marimo_base = link.split("/?").next().unwrap().to_owned();
    let marimo_token = link.split("access_token=").nth(1).unwrap().to_owned();
    let marimo_port: u16 = marimo_base.rsplit(':').next().unwrap().parse().unwrap();
    let sessions = http(
        marimo_port,
        &format!(
            "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:{marimo_port}\r\nAuthorization: Bearer {marimo_token}\r\nConnection: close\r\n\r\n"
        ),
    );
    let body = sessions.split("\r\n\r\n").nth(1).unwrap_or_default();
    // `/api/sessions` answers an object keyed by session id.
    let marimo_session = serde_json::from_str::<Value>(body.trim())
        .ok()
        .and_then(|sessions| sessions.as_object()?.keys().next().cloned())
        .unwrap_or_default();
    assert!(!marimo_session.is_empty(), "no marimo session in {body}");

    let mut cli = Vec::new();
    let mut curl = Vec::new();
    for _ in 0..(samples * 3).max(15) {
        let started = Instant::now();
        let output = workspace.hailer(&["exec", "-c", "pass"]);
        assert!(output.status.success());
        cli.push(started.elapsed());
        let started = Instant::now();
        let status = Command::new("curl")
            .args(["-s", "-N", "-o", "/dev/null", "-X", "POST"])
            .arg(format!("{marimo_base}/api/kernel/execute"))
            .args(["-H", &format!("Authorization: Bearer {marimo_token}")])
            .args(["-H", &format!("Marimo-Session-Id: {marimo_session}")])
            .args([
                "-H",
                "Content-Type: application/json",
                "-H",
                "Accept: text/event-stream",
            ])
            .args(["--data", "{\"code\":\"pass\"}"])
            .status()
            .unwrap();
        assert!(status.success());
        curl.push(started.elapsed());
    }

    let floor = median(floors);
    let ready = median(ours);
    let cli = median(cli);
    let curl = median(curl);
    println!("session benchmark (unsafe-local, starter notebook), medians");
    println!(
        "  floor: marimo spawn, kernel-ready, cells run, pass    {}",
        ms(floor)
    );
    println!(
        "  hailerd: POST /v1/sessions to first exec done          {}",
        ms(ready)
    );
    println!(
        "  ratio                                                   {:.2}   target <= 1.15",
        ready.as_secs_f64() / floor.as_secs_f64()
    );
    println!(
        "  hailer exec -c pass                                     {}",
        ms(cli)
    );
    println!(
        "  curl execute on the same marimo session                 {}",
        ms(curl)
    );
    println!(
        "  difference                                              {}   target <= 5 ms",
        ms(cli.saturating_sub(curl))
    );
    hailer_tests::bench_row(
        "session ready to first exec, starter notebook",
        &ms(ready),
        &ms(floor),
        "<= 1.15 x floor",
    );
    hailer_tests::bench_row(
        "hailer exec -c pass on a live session (floor: curl execute)",
        &ms(cli),
        &ms(curl),
        "<= floor + 5 ms",
    );
}
