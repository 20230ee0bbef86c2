//! Starts that fail: the error says why, shows the log's end without the token, and leaves
//! neither a process nor a log file behind.

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::time::Duration;

use hailer_marimo::{Error, LaunchOptions, ScrubbedEnv, launch};

/// A stand-in for python that echoes the token it read from stdin, as marimo's log does.
const EARLY_EXIT: &str = "#!/bin/sh\nread -r token\n\
echo \"URL: http://localhost:2718?access_token=$token\"\n\
echo 'ModuleNotFoundError: No module named marimo' >&2\nexit 3\n";

/// A stand-in that never answers HTTP.
const SILENT: &str = "#!/bin/sh\nexec sleep 300\n";

fn fake_python(dir: &std::path::Path, script: &str) -> PathBuf {
    let path = dir.join("python");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn options(python: PathBuf, workspace: PathBuf) -> LaunchOptions {
    let env = ScrubbedEnv {
        vars: [("PATH".to_owned(), std::env::var("PATH").unwrap_or_default())].into(),
        withheld: Vec::new(),
    };
    let mut options = LaunchOptions::new(python, workspace, PathBuf::from("notebooks"), env);
    options.preferred_port = 0;
    options
}

fn no_logs_left(workspace: &std::path::Path) -> bool {
    std::fs::read_dir(workspace.join(".hailer"))
        .map(|entries| {
            entries
                .flatten()
                .all(|e| !e.file_name().to_string_lossy().ends_with(".log"))
        })
        .unwrap_or(true)
}

#[tokio::test]
async fn an_early_exit_reports_the_masked_log_tail_and_cleans_up() {
    let tools = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(workspace.path().join("notebooks")).unwrap();
    let python = fake_python(tools.path(), EARLY_EXIT);
    let error = launch(&options(python, workspace.path().to_owned()))
        .await
        .unwrap_err();
    let Error::ServerExited { status, log_tail } = &error else {
        panic!("unexpected error: {error}");
    };
    assert_eq!(status, "exit code 3");
    assert!(log_tail.contains("access_token=<token>"), "{log_tail}");
    assert!(log_tail.contains("No module named marimo"), "{log_tail}");
    // Whatever the token was, only the mask is shown.
    let shown = error.to_string();
    let token_line = shown.lines().find(|l| l.contains("access_token=")).unwrap();
    assert!(token_line.ends_with("access_token=<token>"), "{token_line}");
    assert!(no_logs_left(workspace.path()));
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_and_is_stopped() {
    let tools = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let python = fake_python(tools.path(), SILENT);
    let mut options = options(python, workspace.path().to_owned());
    options.ready_timeout = Duration::from_millis(800);
    let error = launch(&options).await.unwrap_err();
    assert!(matches!(error, Error::ServerNotReady { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains("did not answer on http://127.0.0.1:"),
        "{error}"
    );
    assert!(no_logs_left(workspace.path()));
    let sleepers = std::process::Command::new("pgrep")
        .args(["-f", "^sleep 300$"])
        .output();
    if let Ok(output) = sleepers {
        // Other programs may run `sleep 300` too; ours ran in the workspace, so check its cwd.
        for pid in String::from_utf8_lossy(&output.stdout).split_whitespace() {
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
            assert_ne!(
                cwd,
                workspace.path(),
                "the stand-in server {pid} is still running"
            );
        }
    }
}

#[tokio::test]
async fn a_missing_interpreter_is_reported() {
    let workspace = tempfile::tempdir().unwrap();
    let error = launch(&options(
        PathBuf::from("/nonexistent/python3"),
        workspace.path().to_owned(),
    ))
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("could not start marimo with /nonexistent/python3"),
        "{error}"
    );
    assert!(no_logs_left(workspace.path()));
}
