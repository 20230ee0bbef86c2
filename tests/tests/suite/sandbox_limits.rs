//! The docker kernel's limit and copy-back cases (`docker_limits`, `session_docker`) on the
//! sandbox kernel, each difference explained beside its case.
//!
//! The sandbox limits memory and processes with rlimits, per process: this machine, like many,
//! gives no cgroup v2 a user may manage (its memory and process controllers are cgroup v1 ones,
//! or not delegated), and the sandbox makes no cgroup. `hailer status` and the audit trail say
//! so (`sandbox_surfaces`).

use std::process::Output;

use hailer_tests::TestWorkspace;
use hailer_tests::kernel_code::FORK_BOMB;
use hailer_tests::system::UserArea;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Fills 64 MiB blocks (every page written) until 4 GiB or the memory limit, as docker's case.
const MEMORY_HOG: &str = "blocks = []\nfor _ in range(64):\n    blocks.append(bytearray(b'\\x01') * (64 * 1024 * 1024))\nprint('still here with', len(blocks), 'blocks')";

/// `[kernel] memory` set to `memory` in the workspace's hailer.toml.
fn limit_memory(workspace: &TestWorkspace, memory: &str) {
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let limited = toml.replacen("# memory = \"4g\"", &format!("memory = \"{memory}\""), 1);
    assert_ne!(
        toml, limited,
        "the [kernel] section has no memory line to set"
    );
    workspace.write("hailer.toml", &limited);
}

/// Docker's cgroup ends the whole kernel when it passes the limit, and Hailer restarts it and
/// says it ran out of memory. The sandbox's limit is each process's (`RLIMIT_DATA`): the
/// allocation that would pass it fails inside Python, which raises `MemoryError` in the code
/// that asked, and the kernel process lives on, so there is nothing to restart.
#[test]
fn allocating_past_the_memory_limit_fails_in_the_code_and_the_kernel_answers_after() {
    let workspace = TestWorkspace::sandbox();
    limit_memory(&workspace, "600m");
    let pid = "import os; print(os.getpid())";
    let warm = workspace.hailer(&["exec", "-c", pid]);
    assert!(warm.status.success(), "{warm:?}");

    let hog = workspace.hailer(&["exec", "--timeout", "180", "-c", MEMORY_HOG]);
    assert!(!hog.status.success(), "4 GiB fit in 600m: {hog:?}");
    let said = format!("{}{}", stdout(&hog), stderr(&hog));
    assert!(said.contains("MemoryError"), "{said}");
    assert!(!said.contains("still here"), "{said}");

    // The same kernel process answers: nothing was ended or restarted.
    let after = workspace.hailer(&["exec", "-c", pid]);
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after), stdout(&warm));
    let _ = workspace.hailer(&["daemon", "stop"]);
}

/// The same refusal as docker's: the settings are checked before any kernel starts, whatever
/// the runtime.
#[test]
fn a_limit_too_small_for_a_kernel_is_refused_before_the_sandbox_starts() {
    hailer_tests::notebook_cases::a_memory_limit_too_small_for_a_kernel_is_refused_at_once(
        TestWorkspace::sandbox(),
    );
}

/// Docker copies the notebook back before `hailer run` exits; the sandbox writes it in place
/// (the notebooks folder is bound writable), so the cell is in the host's notebook as soon as
/// marimo saved it, and the same check holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hailer_run_ends_with_the_answers_cell_already_in_the_host_notebook() {
    let workspace =
        hailer_tests::notebook_cases::hailer_run_ends_with_the_answers_cell_in_the_host_notebook(
            TestWorkspace::sandbox,
            "written_in_place_marker",
        )
        .await;
    assert_eq!(workspace.docker_objects(), Vec::<String>::new());
}

/// The ordinary user the fork bomb runs as.
const USER: &str = "hailer-sandbox-user";

/// Docker's cgroup holds every user to its process limit. `RLIMIT_NPROC` holds every user but
/// the host's root (a user namespace changes nothing there), so the case runs as an ordinary
/// user made here, as a user without Docker runs Hailer: the bomb stops at the limit, and the
/// kernel answers after.
#[test]
fn a_fork_bomb_of_an_ordinary_user_stops_at_the_process_limit_and_the_kernel_answers_after() {
    let area = UserArea::with_uv_and_wheelhouse(USER);
    let hailer = |args: &[&str]| {
        area.hailer(args)
            .env("HAILER_WHEELHOUSE", area.path("wheelhouse"))
            .output()
            .unwrap()
    };
    let init = hailer(&["init", "--kernel", "sandbox"]);
    assert!(init.status.success(), "{init:?}");
    let limits = hailer(&[
        "exec",
        "--timeout",
        "600",
        "-c",
        "import os, resource as r; print(os.getuid() != 0, r.getrlimit(r.RLIMIT_NPROC))",
    ]);
    assert!(limits.status.success(), "{limits:?}");
    assert_eq!(stdout(&limits).trim(), "True (256, 256)");

    let bomb = hailer(&["exec", "--timeout", "120", "-c", FORK_BOMB]);
    assert!(bomb.status.success(), "{bomb:?}");
    let out = stdout(&bomb);
    let mut words = out.split_whitespace();
    let children: usize = words
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {out:?}"));
    assert_eq!(
        words.next(),
        Some("11"),
        "fork was not refused with EAGAIN: {out}"
    );
    assert!(
        (1..256).contains(&children),
        "the kernel forked {children} children; the limit is 256 processes"
    );
    let after = hailer(&["exec", "-c", "print(1)"]);
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after).trim(), "1");
}
