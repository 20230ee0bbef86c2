//! The workspace's `.hailer/` folder, as the daemon makes it in a workspace `hailer init` never
//! touched: private, and ignored by git.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Command;

use hailer_tests::TestWorkspace;

fn git(workspace: &TestWorkspace, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(workspace.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", workspace.home.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_state_folder_the_daemon_makes_is_private_and_ignored_by_git() {
    let workspace = TestWorkspace::empty(vec![hailer_tests::kernel_envs::setting()]);
    workspace.write("hailer.toml", "[kernel]\nruntime = \"unsafe-local\"\n");
    workspace.write(
        "notebooks/analysis.py",
        hailer_kernel_bundle::STARTER_NOTEBOOK,
    );
    std::fs::create_dir_all(workspace.path().join("data")).unwrap();
    git(&workspace, &["init", "--quiet"]);
    workspace.trust();
    assert!(
        !workspace.path().join(".hailer").exists(),
        "nothing made it before the session"
    );

    let ran = workspace.hailer(&["exec", "-c", "print(6 * 7)"]);
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), "42");

    let state = workspace.path().join(".hailer");
    let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{mode:o}");
    let listed = git(
        &workspace,
        &["status", "--porcelain", "--untracked-files=all"],
    );
    assert!(
        !listed.lines().any(|line| line.contains(".hailer")),
        "git lists the state folder: {listed}"
    );
    assert!(listed.contains("hailer.toml"), "{listed}");
}
