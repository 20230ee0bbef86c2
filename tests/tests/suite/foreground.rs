//! `hailer notebook --foreground`: the kernel alone, its log followed in the terminal. Ctrl+C
//! stops and removes it; a kernel ended from outside is explained, and the exit code says so.

use std::time::Duration;

use hailer_tests::TestWorkspace;
use hailer_tests::running::Running;
use nix::sys::signal::Signal;

/// How long a kernel may take to start (the docker one includes the copies in).
const START: Duration = Duration::from_secs(120);
/// How long the client may take to stop after Ctrl+C or the kernel's end.
const END: Duration = Duration::from_secs(90);

fn foreground(workspace: &TestWorkspace) -> Running {
    Running::spawn(workspace.command(&["notebook", "--foreground", "--no-browser"]))
}

/// The workspace's unsafe-local marimo servers (their working folder is the workspace).
fn marimo_servers(workspace: &TestWorkspace) -> Vec<u32> {
    hailer_tests::workspace::marimo_servers_in(&workspace.canonical())
}

/// The names of the workspace's containers, running or not.
fn containers(workspace: &TestWorkspace) -> Vec<String> {
    let id = workspace.runtime_id_hint();
    let listed = std::process::Command::new("docker")
        .args(["ps", "-a", "--filter"])
        .arg(format!("label=org.hailer.workspace={id}"))
        .args(["--format", "{{.Names}}"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// What a started foreground kernel prints: its Kernel line, the signed link, and the log.
fn assert_started(running: &Running, kernel: &str) {
    let stdout = running.stdout();
    assert!(stdout.contains(&format!("Kernel:   {kernel}")), "{stdout}");
    assert!(
        stdout.contains("Notebook: http://127.0.0.1:") && stdout.contains("access_token="),
        "{stdout}"
    );
}

/// The kernel log route wants the token, refuses a malformed start, and never shows the
/// kernel's token in a line.
async fn check_the_log_route(workspace: &TestWorkspace, kernel_token: &str) {
    use futures_util::StreamExt as _;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;

    let sessions = workspace.get_json("/v1/sessions").await;
    let id = sessions["sessions"][0]["id"].as_str().unwrap().to_owned();
    let (client, base, token) = workspace.api();
    let path = format!("/v1/sessions/{id}/kernel/log");
    let anonymous = client.get(format!("{base}{path}")).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let bad_tail = client
        .get(format!("{base}{path}?tail=-1"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(bad_tail.status(), 400);

    let mut request = format!(
        "ws://{}{path}?tail=99999999",
        base.trim_start_matches("http://")
    )
    .into_client_request()
    .unwrap();
    request
        .headers_mut()
        .insert("Authorization", format!("Bearer {token}").parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    // Notebook code (which runs as the user here) appends the kernel's token to the log.
    let leak = format!(
        "import glob\nfor path in glob.glob({:?} + '/marimo-*.log'):\n    open(path, 'a').write('leak-marker {kernel_token}\\n')",
        workspace.canonical().join(".hailer").display().to_string()
    );
    let wrote = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", &leak]));
    assert!(wrote.status.success(), "{wrote:?}");
    let mut lines = Vec::new();
    while let Ok(Some(Ok(message))) =
        tokio::time::timeout(Duration::from_secs(5), socket.next()).await
    {
        if let Ok(text) = message.into_text() {
            let done = text.contains("leak-marker");
            lines.push(text.to_string());
            if done {
                break;
            }
        }
    }
    let leaked = lines
        .iter()
        .find(|line| line.contains("leak-marker"))
        .unwrap_or_else(|| panic!("the line never came: {lines:?}"));
    assert_eq!(leaked, "leak-marker <token>");
    assert!(
        lines.iter().all(|line| !line.contains(kernel_token)),
        "{lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_an_unsafe_local_kernel_and_no_marimo_is_left() {
    let workspace = TestWorkspace::unsafe_local();
    let mut running = foreground(&workspace);
    tokio::task::block_in_place(|| {
        running.wait_for_stdout("Following the kernel's log", START);
    });
    assert_started(&running, "unsafe-local (runs as you; not isolated)");
    // marimo's own start-up lines come through, with the token masked.
    tokio::task::block_in_place(|| {
        running.wait_for_stdout("URL: http://localhost:", Duration::from_secs(20));
    });
    let stdout = running.stdout();
    let token = stdout
        .split("access_token=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no signed link: {stdout}"));
    let log = stdout
        .split("Following the kernel's log")
        .nth(1)
        .unwrap_or_default();
    assert!(!log.contains(token), "the log never shows the token: {log}");
    assert_eq!(marimo_servers(&workspace).len(), 1, "one kernel runs");
    check_the_log_route(&workspace, token).await;

    running.signal(Signal::SIGINT);
    let status = tokio::task::block_in_place(|| running.wait(END));
    assert_eq!(status.code(), Some(0), "stderr:\n{}", running.stderr());
    assert!(
        running.stderr().contains("Stopped and removed the kernel."),
        "{}",
        running.stderr()
    );
    assert!(marimo_servers(&workspace).is_empty(), "no marimo is left");
    let log_files: Vec<_> = std::fs::read_dir(workspace.path().join(".hailer"))
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("marimo-"))
        .collect();
    assert!(log_files.is_empty(), "the kernel's log is removed");
}

#[test]
fn an_unsafe_local_kernel_killed_from_outside_is_explained_and_fails_the_command() {
    let workspace = TestWorkspace::unsafe_local();
    let mut running = foreground(&workspace);
    running.wait_for_stdout("Following the kernel's log", START);
    let servers = marimo_servers(&workspace);
    assert_eq!(servers.len(), 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(servers[0]).unwrap()),
        Signal::SIGKILL,
    )
    .unwrap();
    let status = running.wait(END);
    let stderr = running.stderr();
    assert_eq!(status.code(), Some(137), "128 + SIGKILL; stderr:\n{stderr}");
    assert!(
        stderr.contains("was ended from outside by SIGKILL"),
        "says why: {stderr}"
    );
    assert!(marimo_servers(&workspace).is_empty());

    // A lingering session whose kernel was killed is replaced, not reported as a failed start.
    let exec = workspace.hailer(&["exec", "-c", "print(1)"]);
    assert!(exec.status.success(), "{exec:?}");
    let servers = marimo_servers(&workspace);
    assert_eq!(servers.len(), 1);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(servers[0]).unwrap()),
        Signal::SIGKILL,
    )
    .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let mut again = foreground(&workspace);
    again.wait_for_stdout("Following the kernel's log", START);
    again.signal(Signal::SIGINT);
    assert_eq!(again.wait(END).code(), Some(0), "{}", again.stderr());
    assert!(marimo_servers(&workspace).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_docker_kernel_and_removes_its_containers() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let mut running = foreground(&workspace);
    tokio::task::block_in_place(|| {
        running.wait_for_stdout("Following the kernel's log", START);
    });
    assert_started(&running, "docker (hailer-kernel ");
    let started = containers(&workspace);
    assert_eq!(
        started.len(),
        2,
        "the kernel and its forwarder: {started:?}"
    );

    running.signal(Signal::SIGINT);
    let status = tokio::task::block_in_place(|| running.wait(END));
    assert_eq!(status.code(), Some(0), "stderr:\n{}", running.stderr());
    assert!(
        containers(&workspace).is_empty(),
        "no labelled container is left"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_kernel_removed_from_outside_is_explained_and_fails_the_command() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let mut running = foreground(&workspace);
    tokio::task::block_in_place(|| {
        running.wait_for_stdout("Following the kernel's log", START);
    });
    let kernel = containers(&workspace)
        .into_iter()
        .find(|name| name.starts_with("hailer-kernel-"))
        .unwrap_or_else(|| panic!("no kernel container"));
    let removed = std::process::Command::new("docker")
        .args(["rm", "-f", &kernel])
        .output()
        .unwrap();
    assert!(removed.status.success(), "{removed:?}");
    let status = tokio::task::block_in_place(|| running.wait(END));
    let stderr = running.stderr();
    assert_eq!(status.code(), Some(1), "stderr:\n{stderr}");
    assert!(
        stderr.contains("kernel container was removed from outside"),
        "says why: {stderr}"
    );
    assert!(
        containers(&workspace).is_empty(),
        "what was left of it is removed too"
    );
}
