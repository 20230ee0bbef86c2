//! `hailer doctor --probe`: the daemon tests the kernel's isolation from outside it. The docker
//! kernel passes every probe; the same kernel with `[kernel] network = true` fails the network
//! probe, even after code in the kernel patched its probe module to pass; an image derived from
//! Hailer's is named as foreign; unsafe-local says which protections it lacks.

use hailer_tests::TestWorkspace;

const PROBES: [&str; 14] = [
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
    "no new privileges",
    "Hailer's kernel image",
];

/// The probes the kernel itself could run (the last two rows come from the engine only).
const IN_KERNEL: usize = 12;

/// Code run in the kernel before the probe: `hailer_kernel.probes` patched to pass everything.
const PATCH_PROBES: &str = "import json\n\
from hailer_kernel import probes as _p\n\
_names = ['uid not 0', 'no capabilities', 'read-only root', 'data not writable', \
'no TCP to the host gateway', 'no TCP to a public address', 'no DNS', 'pids limit holds', \
'memory limit holds', 'no secret in the environment', 'no token on disk', 'Docker socket absent']\n\
_p.run = lambda *a, **k: [{'probe': n, 'passed': True, 'observed': 'patched', 'facts': {}} for n in _names]\n\
_p.report = lambda *a, **k: json.dumps(_p.run())\n\
print('patched')\n";

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
    let image = hailer_docker::default_image_name(&hailer_kernel_bundle::contract());
    assert!(
        text.contains(&format!("  Image: {image} (sha256:")),
        "the report names the image and its id: {text}"
    );
    // The probes ran in a container of their own, which is gone: kernel, forwarder, network.
    assert_eq!(
        workspace.docker_objects().len(),
        3,
        "{:?}",
        workspace.docker_objects()
    );
    // The kernel still answers after the probes (the fork test's children are gone, and the
    // memory test's child, not the kernel, was what the limit ended).
    let after = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6 * 7)"]));
    assert!(after.status.success(), "{after:?}");
    assert_eq!(stdout(&after).trim(), "42");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["kernel", "stop"]));

    // With the network on, code run in the kernel first patches the probe module to pass.
    set_kernel(&workspace, "# network = false", "network = true");
    // A network the workspace's file turns on is the user's to agree to.
    workspace.trust();
    let patched = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", PATCH_PROBES]));
    assert_eq!(stdout(&patched).trim(), "patched", "{patched:?}");
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
    assert!(
        failed.contains(&"no TCP to a public address".to_owned()),
        "{text}"
    );
    assert!(!text.contains("patched"), "{text}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_derived_from_hailers_is_named_as_foreign() {
    let ours = hailer_tests::docker_image::kernel_image().await;
    // Built FROM Hailer's image, with a probe module that passes everything.
    let recipe = tempfile::tempdir().unwrap();
    std::fs::write(
        recipe.path().join("Dockerfile"),
        format!(
            "FROM {ours}\nUSER root\nRUN python -c \"import hailer_kernel.probes as p; \
             open(p.__file__, 'a').write('\\nrun = lambda *a, **k: []\\n')\"\nUSER 1000:1000\n"
        ),
    )
    .unwrap();
    let derived = format!("hailer-test-derived:{}", hailer_kernel_bundle::contract());
    let built = std::process::Command::new("docker")
        .args(["build", "-q", "-t", &derived])
        .arg(recipe.path())
        .output()
        .unwrap();
    assert!(built.status.success(), "{built:?}");
    let workspace = TestWorkspace::docker();
    set_kernel(
        &workspace,
        "# image = \"\"",
        &format!("image = \"{derived}\""),
    );
    // An image the workspace's file names is the user's to agree to.
    workspace.trust();
    let probed = tokio::task::block_in_place(|| workspace.hailer(&["doctor", "--probe"]));
    let text = stdout(&probed);
    assert_eq!(probed.status.code(), Some(1), "{probed:?}");
    let results = verdicts(&text);
    assert_eq!(
        results
            .iter()
            .map(|(probe, _)| probe.as_str())
            .collect::<Vec<_>>(),
        PROBES,
        "every probe ran, whatever the image's module says: {text}"
    );
    assert!(
        results[..IN_KERNEL]
            .iter()
            .all(|(_, verdict)| verdict == "PASS"),
        "{text}"
    );
    assert_eq!(results[PROBES.len() - 1].1, "FAIL", "{text}");
    assert!(
        text.contains(&format!("  Image: {derived} (sha256:")),
        "{text}"
    );
    assert!(text.contains(", foreign"), "{text}");
    assert!(text.contains("is a foreign image"), "{text}");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    let _ = std::process::Command::new("docker")
        .args(["image", "rm", "-f", &derived])
        .output();
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
        PROBES[..IN_KERNEL],
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
