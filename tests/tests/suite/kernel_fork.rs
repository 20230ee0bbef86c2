//! A notebook kernel starts from marimo's runtime already imported: on Linux it is forked from
//! the fork server that imported the runtime beside the web server's start, it never imports
//! marimo's command line again, and it still leads its own session. Starting marimo as
//! `python -m marimo` again, or spawning kernels, fails these.

use hailer_tests::TestWorkspace;

/// What the kernel says of its start: forked from the fork server, marimo's command line
/// imported, leading its own session.
const HOW_IT_STARTED: &str = "import os, sys
parent = open(f'/proc/{os.getppid()}/cmdline').read()
print('multiprocessing.forkserver' in parent, 'marimo._cli.cli' in sys.modules, os.getsid(0) == os.getpid())";

fn how_it_started(workspace: &TestWorkspace) -> String {
    let output = workspace.hailer(&["exec", "-c", HOW_IT_STARTED]);
    assert!(output.status.success(), "{output:?}");
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(workspace.hailer(&["daemon", "stop"]).status.success());
    said
}

#[test]
fn an_unsafe_local_kernel_is_forked_with_the_runtime_imported() {
    let workspace = TestWorkspace::unsafe_local();
    assert_eq!(how_it_started(&workspace), "True False True");
}

#[test]
fn a_sandbox_kernel_is_forked_with_the_runtime_imported() {
    let workspace = TestWorkspace::sandbox();
    assert_eq!(how_it_started(&workspace), "True False True");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_kernel_is_forked_with_the_runtime_imported() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let said = tokio::task::block_in_place(|| how_it_started(&workspace));
    assert_eq!(said, "True False True");
}
