//! The binary: prints its port, serves the script, records requests, accepts more steps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(script: &Value) -> (Server, u16) {
    let mut file = tempfile_in_target();
    file.1.write_all(script.to_string().as_bytes()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hailer-scripted-model"))
        .arg(&file.0)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a port: {line:?}"));
    (Server(child), port)
}

fn tempfile_in_target() -> (std::path::PathBuf, std::fs::File) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("script-{}.json", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    (path, file)
}

#[tokio::test]
async fn the_binary_serves_its_script_and_takes_more_steps() {
    let script = json!({"steps": [{"reply": {"text": "from the file"}}]});
    let (_server, port) = spawn(&script);
    let http = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});

    let reply: Value = http
        .post(format!("{base}/v1/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        reply["choices"][0]["message"]["content"],
        json!("from the file")
    );

    let more = json!({"steps": [{"fault": {"status": 503, "message": "down"}}]});
    let pushed = http
        .post(format!("{base}/__scripted/steps"))
        .json(&more)
        .send()
        .await
        .unwrap();
    assert!(pushed.status().is_success());
    let failed = http
        .post(format!("{base}/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(failed.status().as_u16(), 503);
    let error: Value = failed.json().await.unwrap();
    assert_eq!(error["error"]["message"], json!("down"));

    let recorded: Value = http
        .get(format!("{base}/__scripted/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let recorded = recorded.as_array().unwrap();
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[0]["path"], json!("/v1/chat/completions"));
    assert_eq!(recorded[1]["path"], json!("/chat/completions"));
    assert_eq!(recorded[0]["body"], body);
}

#[test]
fn the_binary_explains_its_usage() {
    let output = Command::new(env!("CARGO_BIN_EXE_hailer-scripted-model"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("usage: hailer-scripted-model <script.json>"),
        "{stderr}"
    );
}
