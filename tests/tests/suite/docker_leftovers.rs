//! hailerd killed with SIGKILL in the middle of a docker session: its containers and network
//! outlive it, the host notebooks are at most one copy interval stale, and the next start
//! removes the dead owner's objects without touching another workspace's live kernel.

use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;

fn exec(workspace: &TestWorkspace, code: &str) -> String {
    let output = workspace.hailer(&["exec", "-c", code]);
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_daemons_kernel_is_removed_by_the_next_start_and_others_are_untouched() {
    hailer_tests::docker_image::kernel_image().await;
    let killed = TestWorkspace::docker();
    let other = TestWorkspace::docker();
    tokio::task::block_in_place(|| {
        assert_eq!(exec(&killed, "print(1)"), "1");
        assert_eq!(exec(&other, "print(2)"), "2");
        let left_behind = killed.docker_objects();
        let others = other.docker_objects();
        assert_eq!(
            left_behind.len(),
            3,
            "kernel, forwarder, network: {left_behind:?}"
        );
        assert_eq!(others.len(), 3, "{others:?}");

        // A notebook written in the kernel, then more than one copy interval (15 s) of waiting.
        let notebook =
            "import marimo\\n\\napp = marimo.App()\\n\\n\\n@app.cell\\ndef _():\\n    return\\n";
        exec(
            &killed,
            &format!("open('/work/notebooks/before_the_kill.py', 'w').write('{notebook}')"),
        );
        std::thread::sleep(Duration::from_secs(17));

        let pid = killed.runtime().pid;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(Instant::now() < deadline, "hailerd {pid} did not die");
            std::thread::sleep(Duration::from_millis(50));
        }
        // Nothing removed them: their owner died without a word.
        assert_eq!(killed.docker_objects(), left_behind);
        // The periodic copy brought the notebook home before the kill.
        let copied = std::fs::read_to_string(killed.path().join("notebooks/before_the_kill.py"))
            .unwrap_or_default();
        assert!(copied.contains("marimo.App()"), "{copied:?}");

        // The next start of the same workspace removes the dead owner's objects.
        assert_eq!(exec(&killed, "print(3)"), "3");
        let now = killed.docker_objects();
        assert_eq!(now.len(), 3, "{now:?}");
        for name in &left_behind {
            assert!(
                !now.contains(name),
                "{name} outlived its dead owner: {now:?}"
            );
        }
        // The other workspace's live kernel is untouched and still answers.
        assert_eq!(other.docker_objects(), others);
        assert_eq!(exec(&other, "print(4)"), "4");

        for workspace in [&killed, &other] {
            assert!(workspace.hailer(&["daemon", "stop"]).status.success());
        }
        assert!(killed.docker_objects().is_empty());
        assert!(other.docker_objects().is_empty());
    });
}

/// `hailer exec -c code` in `folder` with the daemon of `home`'s Hailer home.
fn exec_in(home: &TestWorkspace, folder: &TestWorkspace, code: &str) -> String {
    let output = home
        .command(&["exec", "-c", code])
        .current_dir(folder.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_daemon_start_removes_a_killed_daemons_kernels_of_every_workspace() {
    hailer_tests::docker_image::kernel_image().await;
    let used = TestWorkspace::docker();
    // A second workspace served by the same daemon (the same Hailer home), with the network on.
    let elsewhere = TestWorkspace::docker();
    let toml = std::fs::read_to_string(elsewhere.path().join("hailer.toml")).unwrap();
    let open = toml.replacen("# network = false", "network = true", 1);
    assert_ne!(toml, open, "hailer.toml has no network line");
    elsewhere.write("hailer.toml", &open);
    tokio::task::block_in_place(|| {
        // The network the file turns on is agreed to, by the user of the Hailer home that
        // serves both workspaces.
        let trusted = used
            .command(&["trust", "--yes"])
            .current_dir(elsewhere.path())
            .output()
            .unwrap();
        assert!(trusted.status.success(), "{trusted:?}");
        assert_eq!(exec(&used, "print(1)"), "1");
        assert_eq!(exec_in(&used, &elsewhere, "print(2)"), "2");
        let left_behind = elsewhere.docker_objects();
        assert_eq!(
            left_behind.len(),
            1,
            "a kernel on the default network: {left_behind:?}"
        );

        let pid = used.runtime().pid;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(Instant::now() < deadline, "hailerd {pid} did not die");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(elsewhere.docker_objects(), left_behind);

        // The next daemon is started without using either workspace.
        assert!(used.hailer(&["daemon", "start"]).status.success());
        let deadline = Instant::now() + Duration::from_secs(60);
        // Both workspaces' objects go, the one not used since included.
        while !elsewhere.docker_objects().is_empty() || !used.docker_objects().is_empty() {
            assert!(
                Instant::now() < deadline,
                "a kernel outlived its dead daemon: {:?} {:?}",
                elsewhere.docker_objects(),
                used.docker_objects()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        assert!(used.hailer(&["daemon", "stop"]).status.success());
    });
}
