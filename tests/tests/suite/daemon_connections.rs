//! The listener under a flood of idle and slow connections on loopback: the oldest idle ones
//! are closed to make room, so a real command still gets its answer quickly.

use std::time::{Duration, Instant};

use hailer_tests::TestDaemon;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const IDLE: usize = 2_000;
const SLOW: usize = 50;

/// Room for the held connections, the daemon's side of them and the test's own files.
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    let wanted = 8_192.min(hard);
    assert!(
        wanted >= 4_096,
        "the open-file limit's hard cap is {hard}; this test needs 4096 (raise it with ulimit -Hn)"
    );
    if soft < wanted {
        setrlimit(Resource::RLIMIT_NOFILE, wanted, hard).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn daemon_status_answers_within_a_second_past_thousands_of_idle_and_slow_connections() {
    raise_open_file_limit();
    let daemon = TestDaemon::start(&[]).unwrap();
    let port = daemon.runtime.port;

    let mut held = Vec::with_capacity(IDLE + SLOW);
    for _ in 0..IDLE {
        held.push(TcpStream::connect(("127.0.0.1", port)).await.unwrap());
    }
    // Slowloris: each sends a request's first bytes, then one more byte now and then.
    let mut slow = Vec::with_capacity(SLOW);
    for _ in 0..SLOW {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        stream
            .write_all(format!("GET /v1/daemon HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").as_bytes())
            .await
            .unwrap();
        slow.push(stream);
    }
    let trickle = tokio::spawn(async move {
        // Bounded: at most 40 rounds of one header byte each.
        for _ in 0..40 {
            for stream in &mut slow {
                let _ = stream.write_all(b"X").await;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        slow
    });
    tokio::time::sleep(Duration::from_millis(500)).await;

    let home = daemon.home.path().to_path_buf();
    let (elapsed, output) = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let output = std::process::Command::new(hailer_tests::bins::path("hailer"))
            .args(["daemon", "status"])
            .env("HAILER_HOME", &home)
            .env("HAILER_DAEMON_BIN", hailer_tests::bins::path("hailerd"))
            .output()
            .unwrap();
        (started.elapsed(), output)
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(said.contains(&daemon.runtime.pid.to_string()), "{said}");
    println!(
        "hailer daemon status answered in {elapsed:?} past {IDLE} idle and {SLOW} slow connections"
    );
    assert!(elapsed < Duration::from_secs(1), "it took {elapsed:?}");
    trickle.abort();
    drop(held);
}
