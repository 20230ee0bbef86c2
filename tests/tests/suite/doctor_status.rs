//! `hailer doctor` and `hailer status` as a user reads them: the rows and the exit code with
//! Docker unreachable, the key missing and a broken configuration.

use hailer_tests::TestWorkspace;

/// The output with this machine's details replaced: the workspace and the kernel contract.
fn redacted(workspace: &TestWorkspace, text: &str) -> String {
    text.replace(&workspace.canonical().display().to_string(), "[workspace]")
        .replace(&workspace.path().display().to_string(), "[workspace]")
        .replace(&hailer_kernel_bundle::contract(), "[contract]")
}

fn doctor(workspace: &TestWorkspace, env: &[(&str, &str)]) -> (i32, String) {
    let mut command = workspace.command(&["doctor"]);
    command
        .env_remove("OPENAI_API_KEY")
        .env_remove("SCRIPTED_KEY");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert!(output.stderr.is_empty(), "{output:?}");
    (
        output.status.code().unwrap_or(-1),
        redacted(workspace, &String::from_utf8_lossy(&output.stdout)),
    )
}

#[test]
fn docker_unreachable_and_no_key_fail() {
    let workspace = TestWorkspace::docker();
    // Docker is judged as hailerd finds it, and `init` started hailerd with this machine's
    // engine: stop it, so the doctor below starts it with that shell's DOCKER_HOST.
    let stop = workspace.hailer(&["daemon", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    // A socket nobody listens on any more.
    let dead = workspace.home.path().join("dead-docker.sock");
    drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
    let host = format!("unix://{}", dead.display());
    let (code, table) = doctor(&workspace, &[("DOCKER_HOST", &host)]);
    assert_eq!(code, 1, "{table}");
    let table = table.replace(&dead.display().to_string(), "[dead socket]");
    insta::assert_snapshot!("doctor_docker_unreachable", table);

    // The daemon the first doctor started keeps that shell's DOCKER_HOST: another engine
    // counts once it starts again with the new one.
    let stop = workspace.hailer(&["daemon", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    // No engine at all.
    let (code, table) = doctor(
        &workspace,
        &[("DOCKER_HOST", "unix:///nonexistent/hailer-test/docker.sock")],
    );
    assert_eq!(code, 1, "{table}");
    assert!(
        table.contains("docker       FAIL  Docker is not running: the engine at unix:///nonexistent/hailer-test/docker.sock did not answer (docker said: there is no socket at /nonexistent/hailer-test/docker.sock)"),
        "{table}"
    );
}

#[test]
fn a_missing_key_fails_and_unsafe_local_warns() {
    let workspace = TestWorkspace::unsafe_local();
    let (code, table) = doctor(&workspace, &[]);
    assert_eq!(code, 1, "{table}");
    insta::assert_snapshot!("doctor_key_missing", table);

    let (code, table) = doctor(&workspace, &[("OPENAI_API_KEY", "sk-test-not-shown")]);
    assert_eq!(code, 0, "{table}");
    assert!(
        table.contains("credentials  OK    OPENAI_API_KEY from the environment"),
        "{table}"
    );
    assert!(!table.contains("sk-test-not-shown"), "{table}");

    // A key kept with `hailer login` counts, as it does for a session started from this shell.
    let mut login = workspace.command(&["login"]);
    login
        .env_remove("OPENAI_API_KEY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = login.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"sk-stored-not-shown\n").unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let (code, table) = doctor(&workspace, &[]);
    assert_eq!(code, 0, "{table}");
    assert!(
        table.contains("credentials  OK    stored in the "),
        "{table}"
    );
    assert!(!table.contains("sk-stored-not-shown"), "{table}");
}

#[test]
fn a_bad_configuration_fails_with_every_problem() {
    let workspace = TestWorkspace::unsafe_local();
    workspace.write(
        "hailer.toml",
        "[model]\nreasoning_effort = \"extreme\"\n\n[kernel]\nruntime = \"local\"\n",
    );
    let (code, table) = doctor(&workspace, &[("OPENAI_API_KEY", "sk-test")]);
    assert_eq!(code, 1, "{table}");
    insta::assert_snapshot!("doctor_bad_config", table);
}

#[test]
fn doctor_json_has_the_same_rows() {
    let workspace = TestWorkspace::unsafe_local();
    let output = workspace
        .command(&["doctor", "--json"])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["ok"], false);
    let checks: Vec<&str> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        ["config", "trust", "notebook", "credentials", "kernel"]
    );
    assert_eq!(report["rows"][1]["verdict"], "OK");
    assert_eq!(report["rows"][3]["verdict"], "FAIL");
}

#[test]
fn status_without_a_daemon_starts_nothing() {
    let workspace = TestWorkspace::unsafe_local();
    let output = workspace.hailer(&["status"]);
    assert!(output.status.success(), "{output:?}");
    let text = redacted(&workspace, &String::from_utf8_lossy(&output.stdout));
    assert!(text.contains("hailerd: not running"), "{text}");
    assert!(text.contains("Workspace:   [workspace]"), "{text}");
    assert!(
        text.contains("Kernel:      unsafe-local (runs as you; not isolated)"),
        "{text}"
    );
    assert!(!workspace.home.path().join("run/hailerd.json").exists());

    // With a session live, it is listed with its kernel.
    let exec = workspace.hailer(&["exec", "-c", "print(1)"]);
    assert!(exec.status.success(), "{exec:?}");
    let output = workspace.hailer(&["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(status["sessions"].as_array().unwrap().len(), 1, "{status}");
    assert_eq!(status["sessions"][0]["kernel"], "idle", "{status}");
    assert_eq!(status["workspace"]["session"], status["sessions"][0]["id"]);
}

/// The daemon's API requests logged so far (its debug log names each one).
fn api_requests(workspace: &TestWorkspace) -> Vec<String> {
    workspace
        .daemon_log()
        .lines()
        .filter(|line| line.contains("API request"))
        .map(str::to_owned)
        .collect()
}

/// `hailer status` costs one round-trip: everything it prints comes in one reply, the Docker
/// engine's status as the daemon last found it.
#[test]
fn status_asks_the_daemon_once() {
    let workspace = TestWorkspace::docker();
    // A daemon that logs each API request.
    let stop = workspace.hailer(&["daemon", "stop"]);
    assert!(stop.status.success(), "{stop:?}");
    let start = workspace
        .command(&["daemon", "start"])
        .env("HAILER_LOG", "hailerd=debug")
        .output()
        .unwrap();
    assert!(start.status.success(), "{start:?}");
    let first = workspace.hailer(&["status", "--json"]);
    assert!(first.status.success(), "{first:?}");

    let before = api_requests(&workspace).len();
    let output = workspace.hailer(&["status"]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(text.contains("hailerd "), "{text}");
    assert!(text.contains("Credentials: "), "{text}");
    assert!(text.contains("Image:       "), "{text}");
    assert!(!text.contains("not checked"), "{text}");
    // The log is written behind the requests: give it a moment.
    let mut made = Vec::new();
    for _ in 0..20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        made = api_requests(&workspace).split_off(before);
    }
    let _ = workspace.hailer(&["daemon", "stop"]);
    assert_eq!(made.len(), 1, "{made:#?}");
    assert!(made[0].contains("path=/v1/status"), "{made:#?}");
}
