//! The floor benchmarks compare against: plain marimo, started the way a person would, to its
//! first usable kernel.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A notebook with one empty cell, so neither side runs notebook code.
pub const EMPTY_NOTEBOOK: &str = "import marimo\n\napp = marimo.App()\n\n\n@app.cell\ndef _():\n    return\n\n\nif __name__ == \"__main__\":\n    app.run()\n";

/// What a person does by hand to get a first result, with `python`'s marimo in `dir`: spawn
/// `marimo edit notebooks` to `/health`, one `/sse` for `notebooks/analysis.py` until
/// kernel-ready, `instantiate` with its cells run (as a browser tab does), then `code` through
/// `/api/kernel/execute` until its `done`, which waits for those cells. The server is killed
/// afterwards.
pub fn first_execute(dir: &Path, python: &Path, code: &str) -> Duration {
    let port = crate::free_port();
    let token = "benchtoken0123456789abcdef0123456789";
    let started = Instant::now();
    let mut child = Command::new(python)
        .args([
            "-m",
            "marimo",
            "edit",
            "notebooks",
            "--token-password-file",
            "-",
            "--headless",
        ])
        .args(["--port", &port.to_string(), "--skip-update-check"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|error| panic!("{error}"));
    child
        .stdin
        .take()
        .unwrap_or_else(|| panic!("marimo has no stdin"))
        .write_all(token.as_bytes())
        .unwrap_or_else(|error| panic!("{error}"));
    loop {
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) {
            let request = format!(
                "GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
            );
            stream
                .write_all(request.as_bytes())
                .unwrap_or_else(|error| panic!("{error}"));
            let mut reply = String::new();
            let _ = stream.read_to_string(&mut reply);
            if reply.starts_with("HTTP/1.1 200") {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let file = dir.join("notebooks/analysis.py");
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|error| panic!("{error}"));
    let request = format!(
        "GET /sse?session_id=bench&file={} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\r\n",
        file.display()
    );
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|error| panic!("{error}"));
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.contains("kernel-ready") {
            break;
        }
    }
    let page = exchange(port, "GET", "/", token, &[], "");
    let skew = page
        .split("data-token=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("marimo's page has no server token"))
        .to_owned();
    let instantiated = exchange(
        port,
        "POST",
        "/api/kernel/instantiate",
        token,
        &[
            ("Marimo-Server-Token", &skew),
            ("Marimo-Session-Id", "bench"),
        ],
        r#"{"objectIds":[],"values":[],"autoRun":true}"#,
    );
    assert!(instantiated.starts_with("HTTP/1.1 200"), "{instantiated}");
    let body = serde_json::json!({ "code": code }).to_string();
    let executed = exchange(
        port,
        "POST",
        "/api/kernel/execute",
        token,
        &[("Marimo-Session-Id", "bench")],
        &body,
    );
    assert!(executed.contains("event: done"), "{executed}");
    let elapsed = started.elapsed();
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or_default()),
        nix::sys::signal::Signal::SIGKILL,
    );
    let _ = child.wait();
    elapsed
}

/// One HTTP/1.1 request with the token; the whole reply (the server closes the connection).
fn exchange(
    port: u16,
    method: &str,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> String {
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|error| panic!("{error}"));
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n\
         Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream
        .write_all(request.as_bytes())
        .unwrap_or_else(|error| panic!("{error}"));
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    reply
}
