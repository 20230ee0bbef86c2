//! Where a user reads which kernel runs: `hailer status`, the browser page (real Chromium) and
//! the audit trail name the sandbox runtime, what it keeps from the code and how it limits it.

use std::time::Duration;

use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;

const WAIT: Duration = Duration::from_secs(60);

/// The `Kernel:` line of a sandbox kernel, as every surface shows it.
const KERNEL_LINE: &str = "sandbox (your Python in the system's sandbox; no network; data \
                           read-only; only the notebooks writable; memory and processes limited \
                           per process, not in total)";

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_the_page_and_the_audit_trail_name_the_sandbox_and_what_it_isolates() {
    let workspace = TestWorkspace::sandbox();
    let ran = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(stdout(&ran).trim(), "42");

    // `hailer status`: the workspace's kernel and the live session's.
    let status = tokio::task::block_in_place(|| workspace.hailer(&["status"]));
    assert!(status.status.success(), "{status:?}");
    let said = stdout(&status);
    assert!(
        said.contains(&format!("Kernel:      {KERNEL_LINE}")),
        "{said}"
    );
    assert!(
        said.contains(&format!("kernel:   {KERNEL_LINE} (idle)")),
        "{said}"
    );

    // The audit trail's kernel start: the runtime, the confinement, and the limits in force.
    let audit = tokio::task::block_in_place(|| workspace.hailer(&["audit"]));
    assert!(audit.status.success(), "{audit:?}");
    let trail = stdout(&audit);
    assert!(
        trail.contains(&format!(
            "{KERNEL_LINE}; namespaces, Landlock, seccomp: no network, no other process, only \
             the data (read-only), the notebooks and the environment in sight; memory and \
             processes limited by rlimits per process, not by a cgroup (memory 4g each, at most \
             256 processes)"
        )),
        "{trail}"
    );

    // The page: the session's facts name the sandbox, and no unsafe-local warning shows.
    let link = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(link.status.success(), "{link:?}");
    let link = stdout(&link).trim().to_owned();
    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    let shown = browser
        .wait_for(
            "the kernel's runtime",
            "return !document.getElementById('session').hidden && document.getElementById('fact-runtime').textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(shown.as_str(), Some(KERNEL_LINE), "{shown}");
    let warning_hidden = browser
        .eval("return document.getElementById('unsafe-warning').hidden")
        .await
        .unwrap();
    assert_eq!(warning_hidden, serde_json::Value::Bool(true));
    browser.close().await;
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
