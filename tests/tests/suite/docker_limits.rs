//! The docker kernel's limits as a user meets them: a fork bomb stops at the process limit, and
//! code that allocates past `[kernel].memory` is reported as out of memory; the kernel answers
//! afterwards both times. A limit too small for any kernel is refused before anything starts (in
//! 40m marimo's server thrashes and never answers).

use hailer_tests::TestWorkspace;
use hailer_tests::kernel_code::FORK_BOMB;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Fills 64 MiB blocks (every page written) until 4 GiB or the memory limit.
const MEMORY_HOG: &str = "blocks = []\nfor _ in range(64):\n    blocks.append(bytearray(b'\\x01') * (64 * 1024 * 1024))\nprint('still here with', len(blocks), 'blocks')";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_bomb_stops_at_the_process_limit_and_the_kernel_answers_after() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();

    let bomb = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "--timeout", "120", "-c", FORK_BOMB])
    });
    assert!(bomb.status.success(), "{bomb:?}");
    let out = stdout(&bomb);
    let mut words = out.split_whitespace();
    let children: usize = words
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {out:?}"));
    let refused = words.next().unwrap_or_default();
    assert_eq!(refused, "11", "fork was not refused with EAGAIN: {out:?}");
    assert!(
        (1..256).contains(&children),
        "the kernel forked {children} children; the limit is 256 processes"
    );

    let after = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after).trim(), "1");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allocating_past_the_memory_limit_is_reported_as_out_of_memory() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let limited = toml.replacen("# memory = \"4g\"", "memory = \"600m\"", 1);
    assert_ne!(
        toml, limited,
        "the [kernel] section has no memory line to set"
    );
    workspace.write("hailer.toml", &limited);

    let warm = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(warm.status.success(), "{warm:?}");

    let hog = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "--timeout", "180", "-c", MEMORY_HOG])
    });
    assert!(!hog.status.success(), "4 GiB fit in 600m: {hog:?}");
    let said = stderr(&hog);
    assert!(
        said.contains("ran out of memory") && said.contains("600m"),
        "the failure does not say out of memory: {said}"
    );
    assert!(said.contains("raise memory under [kernel]"), "{said}");
    assert!(!stdout(&hog).contains("still here"));

    // The kernel was restarted and answers.
    let after = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after).trim(), "42");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_too_small_for_a_kernel_is_refused_before_anything_starts() {
    let workspace = tokio::task::block_in_place(|| {
        hailer_tests::notebook_cases::a_memory_limit_too_small_for_a_kernel_is_refused_at_once(
            TestWorkspace::docker(),
        )
    });
    assert_eq!(workspace.docker_objects(), Vec::<String>::new());
}
