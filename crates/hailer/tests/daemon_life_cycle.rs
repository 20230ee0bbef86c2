//! The daemon's life cycle through the two programs, as a user drives it: the version, `daemon
//! start`, `daemon status --json`, a request with a wrong token refused, the runtime file kept
//! private, `daemon stop`, in a Hailer home whose path has spaces and non-ASCII. It runs natively,
//! with the test command's `cargo nextest`; under Wine, `scripts/check-other-platforms.sh` drives
//! the same life cycle with the Windows `hailer.exe` and `hailerd.exe` from the shell instead.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// Runs `hailer ARGS` with this test's Hailer home; hailerd is found beside it.
fn hailer(home: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_hailer"))
        .args(args)
        .env("HAILER_HOME", home)
        .env_remove("HAILER_DAEMON_BIN")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "hailer {args:?} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Stops the daemon however the test ends.
struct Stopper<'a>(&'a Path);

impl Drop for Stopper<'_> {
    fn drop(&mut self) {
        let _ = Command::new(env!("CARGO_BIN_EXE_hailer"))
            .args(["daemon", "stop"])
            .env("HAILER_HOME", self.0)
            .output();
    }
}

/// `GET /v1/daemon` with `token`: the status code the daemon answers.
fn status_with_token(port: u16, token: &str) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /v1/daemon HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).unwrap_or_default();
    status
        .parse()
        .unwrap_or_else(|_| panic!("not an HTTP answer: {response}"))
}

#[test]
fn start_status_wrong_token_private_runtime_file_stop() {
    let dir = tempfile::Builder::new()
        .prefix("Hailer hömé ")
        .tempdir()
        .unwrap();
    let home = dir.path();
    let _stopper = Stopper(home);

    let version = stdout(&hailer(home, &["--version"]));
    assert_eq!(
        version.trim(),
        format!("hailer {}", env!("CARGO_PKG_VERSION"))
    );

    let started = stdout(&hailer(home, &["daemon", "start"]));
    assert!(started.starts_with("hailerd is running (pid "), "{started}");

    let status: serde_json::Value =
        serde_json::from_str(&stdout(&hailer(home, &["daemon", "status", "--json"]))).unwrap();
    let pid = status["pid"].as_u64().unwrap();
    let port = u16::try_from(status["port"].as_u64().unwrap()).unwrap();
    let runtime_file = PathBuf::from(status["runtimeFile"].as_str().unwrap());
    assert_eq!(runtime_file, home.join("run").join("hailerd.json"));
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));

    let advertised: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&runtime_file).unwrap()).unwrap();
    let token = advertised["token"].as_str().unwrap();
    assert_eq!(advertised["pid"].as_u64(), Some(pid));
    let wrong: String = token.chars().rev().collect();
    assert_eq!(
        status_with_token(port, &wrong),
        401,
        "a wrong token is refused"
    );
    assert_eq!(
        status_with_token(port, token),
        200,
        "the right one is served"
    );

    // 0600 in a 0700 folder on Unix; an owner-only access list on Windows.
    hailer_platform::check_private(&runtime_file).unwrap();
    hailer_platform::check_private(runtime_file.parent().unwrap()).unwrap();

    let stopped = stdout(&hailer(home, &["daemon", "stop"]));
    assert_eq!(stopped.trim(), format!("hailerd stopped (pid {pid})."));
    assert!(
        !runtime_file.exists(),
        "the runtime file goes with the daemon"
    );
    let again = stdout(&hailer(home, &["daemon", "stop"]));
    assert_eq!(again.trim(), "hailerd is not running.");
}
