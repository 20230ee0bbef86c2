//! One daemon per user, its runtime file, signals, idle exit, kill -9 and the client's restart.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use futures_util::StreamExt;
use hailer_tests::TestDaemon;
use hailer_tests::bins;
use hailer_tests::daemon::{
    http_client, runtime_path, signal, spawn, wait_child, wait_for_runtime_file,
};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Every process's command line, as text.
fn all_command_lines() -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            text.push_str(&String::from_utf8_lossy(&bytes));
            text.push('\n');
        }
    }
    text
}

#[test]
fn runtime_file_is_private_and_the_token_stays_out_of_logs_and_argv() {
    let daemon = TestDaemon::start(&["--heartbeat-secs", "1"]).unwrap();
    let path = daemon.runtime_file_path();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(daemon.runtime.token.len(), 64);
    // Make the daemon log a few things, including refused requests carrying the token.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = http_client();
        for _ in 0..3 {
            client
                .get(daemon.url("/v1/daemon"))
                .bearer_auth(daemon.token())
                .header("Host", "evil.example:1")
                .send()
                .await
                .unwrap();
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    let log = daemon.log_text();
    assert!(log.contains("hailerd started"), "the log is written: {log}");
    assert!(!log.contains(daemon.token()), "token in the log");
    assert!(
        !all_command_lines().contains(daemon.token()),
        "token in an argv"
    );
}

#[test]
fn two_daemons_started_at_once_leave_exactly_one_serving() {
    let home = tempfile::tempdir().unwrap();
    let mut first = spawn(home.path(), &[]).unwrap();
    let mut second = spawn(home.path(), &[]).unwrap();
    // One of them exits with success, saying another runs.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let (mut winner, loser_status) = loop {
        if let Some(status) = first.try_wait().unwrap() {
            break (second, status);
        }
        if let Some(status) = second.try_wait().unwrap() {
            break (first, status);
        }
        assert!(std::time::Instant::now() < deadline, "neither exited");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(loser_status.success(), "the second daemon exits 0");
    let file = wait_for_runtime_file(home.path(), winner.id()).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let ok = runtime.block_on(async {
        http_client()
            .get(format!("http://127.0.0.1:{}/v1/daemon", file.port))
            .bearer_auth(&file.token)
            .send()
            .await
            .unwrap()
            .status()
    });
    assert!(ok.is_success());
    assert!(
        winner.try_wait().unwrap().is_none(),
        "the winner keeps running"
    );
    winner.kill().unwrap();
    winner.wait().unwrap();
}

#[test]
fn a_second_start_reports_the_first_and_exits_zero() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let output = Command::new(bins::path("hailerd"))
        .env("HAILER_HOME", daemon.home.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("already running"), "{said}");
    assert!(said.contains(&daemon.runtime.pid.to_string()), "{said}");
}

#[test]
fn sigterm_tells_clients_and_removes_the_runtime_file() {
    let mut daemon = TestDaemon::start(&[]).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut socket = runtime.block_on(async {
        let mut request = format!("ws://127.0.0.1:{}/v1/events", daemon.runtime.port)
            .into_client_request()
            .unwrap();
        request.headers_mut().insert(
            "Authorization",
            HeaderValue::from_str(&format!("Bearer {}", daemon.token())).unwrap(),
        );
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        socket.next().await.unwrap().unwrap(); // hello
        socket
    });
    daemon.terminate().unwrap();
    let last = runtime.block_on(async {
        let mut texts = Vec::new();
        while let Ok(Some(Ok(message))) =
            tokio::time::timeout(Duration::from_secs(10), socket.next()).await
        {
            if let Ok(text) = message.into_text() {
                texts.push(text.to_string());
            }
        }
        texts
    });
    assert!(
        last.iter().any(|text| text.contains("shuttingDown")),
        "{last:?}"
    );
    assert!(daemon.wait_exit(Duration::from_secs(10)).unwrap().success());
    assert!(!daemon.runtime_file_path().exists());
}

#[test]
fn an_idle_daemon_exits_by_itself() {
    let mut daemon = TestDaemon::start(&["--idle-exit-secs", "1"]).unwrap();
    let status = daemon.wait_exit(Duration::from_secs(15)).unwrap();
    assert!(status.success());
    assert!(!daemon.runtime_file_path().exists());
    assert!(daemon.log_text().contains("idle"));
}

fn hailer(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(bins::path("hailer"))
        .args(args)
        .env("HAILER_HOME", home)
        .env("HAILER_DAEMON_BIN", bins::path("hailerd"))
        .output()
        .unwrap()
}

#[test]
fn the_client_starts_a_fresh_daemon_after_kill_9() {
    let home = tempfile::tempdir().unwrap();
    let started = hailer(home.path(), &["daemon", "status", "--json"]);
    assert!(started.status.success(), "{started:?}");
    let first: serde_json::Value = serde_json::from_slice(&started.stdout).unwrap();
    let first_pid = first["pid"].as_u64().unwrap();
    for key in ["pid", "port", "version", "uptimeSecs", "runtimeFile"] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }

    signal(
        u32::try_from(first_pid).unwrap(),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        runtime_path(home.path()).exists(),
        "a killed daemon leaves its file"
    );

    let again = hailer(home.path(), &["daemon", "status", "--json"]);
    assert!(again.status.success(), "{again:?}");
    let second: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_ne!(second["pid"], first["pid"]);

    let stopped = hailer(home.path(), &["daemon", "stop"]);
    assert!(stopped.status.success());
    assert!(!runtime_path(home.path()).exists());
    let pid = u32::try_from(second["pid"].as_u64().unwrap()).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&format!("/proc/{pid}")).exists() {
        // A zombie until its parent (gone) is reaped by init; its state says so.
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if status.contains("zombie") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "daemon still alive");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn hailer_version_and_help() {
    let home = tempfile::tempdir().unwrap();
    let version = hailer(home.path(), &["--version"]);
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("hailer {}", env!("CARGO_PKG_VERSION"))
    );
    let help = hailer(home.path(), &["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("Examples:"));
    let completions = hailer(home.path(), &["completions", "bash"]);
    assert!(completions.status.success());
    assert!(String::from_utf8_lossy(&completions.stdout).contains("_hailer"));
}

#[test]
fn a_stale_runtime_file_is_replaced() {
    let home = tempfile::tempdir().unwrap();
    let path = runtime_path(home.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        r#"{"pid":999999,"port":1,"token":"old","version":"0","startedAt":0}"#,
    )
    .unwrap();
    let mut child = spawn(home.path(), &[]).unwrap();
    let file = wait_for_runtime_file(home.path(), child.id()).unwrap();
    assert_ne!(file.token, "old");
    child.kill().unwrap();
    let _ = wait_child(&mut child, Duration::from_secs(5));
}
