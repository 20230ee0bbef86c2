//! `hailer doctor --probe`: the kernel tests its own isolation. The docker kernel passes every
//! probe; the same kernel with `[kernel] network = true` fails the network probe; unsafe-local
//! says which protections it lacks.

use hailer_tests::TestWorkspace;

const PROBES: [&str; 12] = [
    "uid not 0",
    "no capabilities",
    "read-only root",
    "data not writable",
    "no TCP to the host gateway",
    "no TCP to a public address",
    "no DNS",
    "pids limit holds",
    "memory limit holds",
    "no secret in the environment",
    "no token on disk",
    "Docker socket absent",
];

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The verdict (`PASS` or `FAIL`) printed for each probe, in order.
fn verdicts(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let (verdict, rest) = line.split_once("  ")?;
            (verdict == "PASS" || verdict == "FAIL").then(|| {
                let probe = PROBES
                    .iter()
                    .find(|probe| rest.trim_start().starts_with(*probe))
                    .map_or_else(|| rest.to_owned(), |probe| (*probe).to_owned());
                (probe, verdict.to_owned())
            })
        })
        .collect()
}

fn set_kernel(workspace: &TestWorkspace, from: &str, to: &str) {
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let changed = toml.replacen(from, to, 1);
    assert_ne!(toml, changed, "hailer.toml has no {from:?} line");
    workspace.write("hailer.toml", &changed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docker_kernel_passes_every_probe_and_fails_the_network_one_with_the_network_on() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    // The default memory limit (4g): the fork test's copies of the kernel need room.
    let probed = tokio::task::block_in_place(|| workspace.hailer(&["doctor", "--probe"]));
    let text = stdout(&probed);
    assert_eq!(probed.status.code(), Some(0), "{probed:?}");
    let expected: Vec<(String, String)> = PROBES
        .iter()
        .map(|probe| ((*probe).to_owned(), "PASS".to_owned()))
        .collect();
    assert_eq!(verdicts(&text), expected, "{text}");
    assert!(text.contains("fork refused (EAGAIN)"), "{text}");
    assert!(
        text.contains("a process allocating past memory.max (4096 MiB) was ended by the limit"),
        "{text}"
    );
    // The kernel still answers after the probes (the fork test's children are gone, and the
    // memory test's child, not the kernel, was what the limit ended).
    let after = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after).trim(), "42");
    // The probes ran as an exec of their own, recorded as the doctor's.
    let audit = tokio::task::block_in_place(|| workspace.hailer(&["audit", "--json"]));
    let records: Vec<serde_json::Value> = serde_json::from_str(&stdout(&audit)).unwrap();
    assert!(
        records
            .iter()
            .any(|record| record["client"] == "doctor" && record["outcome"] == "ok"),
        "{records:#?}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["kernel", "stop"]));

    set_kernel(&workspace, "# network = false", "network = true");
    // A network the workspace's file turns on is the user's to agree to.
    workspace.trust();
    let open = tokio::task::block_in_place(|| workspace.hailer(&["doctor", "--probe"]));
    let text = stdout(&open);
    assert_eq!(open.status.code(), Some(1), "{open:?}");
    let failed: Vec<String> = verdicts(&text)
        .into_iter()
        .filter(|(_, verdict)| verdict == "FAIL")
        .map(|(probe, _)| probe)
        .collect();
    assert!(
        failed.contains(&"no TCP to the host gateway".to_owned()),
        "{text}"
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_local_reports_the_protections_it_lacks() {
    let workspace = TestWorkspace::unsafe_local();
    let probed = tokio::task::block_in_place(|| workspace.hailer(&["doctor", "--probe"]));
    let text = stdout(&probed);
    assert_eq!(probed.status.code(), Some(1), "{probed:?}");
    assert!(
        text.contains("unsafe-local runs notebook code as you, on this machine"),
        "{probed:?}"
    );
    let results = verdicts(&text);
    assert_eq!(
        results
            .iter()
            .map(|(probe, _)| probe.as_str())
            .collect::<Vec<_>>(),
        PROBES,
        "{text}"
    );
    let verdict = |name: &str| {
        results
            .iter()
            .find(|(probe, _)| probe == name)
            .map(|(_, verdict)| verdict.as_str())
    };
    // The data folder is the user's own, and the daemon's token file is readable.
    assert_eq!(verdict("data not writable"), Some("FAIL"), "{text}");
    assert_eq!(verdict("no token on disk"), Some("FAIL"), "{text}");
    assert_eq!(verdict("read-only root"), Some("FAIL"), "{text}");
    let absent = text
        .lines()
        .find(|line| line.trim_start().starts_with("Protections absent here: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(absent.contains("data not writable"), "{absent}");
    assert!(absent.contains("no token on disk"), "{absent}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}
