//! The audit trail's end is anchored in Hailer's data folder: a trail cut short with its head,
//! removed, emptied or replaced by a link to `/dev/null` fails `hailer audit verify`, which says
//! what was lost; and a trail that cannot be written keeps code from running.

use std::path::Path;
use std::process::Output;

use hailer_tests::TestWorkspace;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `hailer audit verify` failed with this first line.
fn refused_with(workspace: &TestWorkspace, expected: &str) {
    let verified = workspace.hailer(&["audit", "verify"]);
    assert_eq!(verified.status.code(), Some(1), "{}", said(&verified));
    assert_eq!(
        stdout(&verified).lines().next().unwrap_or_default(),
        format!("The audit trail was tampered with: {expected}."),
        "{}",
        said(&verified)
    );
}

fn restore(trail: &Path, text: &str) {
    let _ = std::fs::remove_file(trail);
    std::fs::write(trail, text).unwrap();
}

#[test]
fn a_trail_cut_short_removed_emptied_or_linked_away_fails_verify_saying_what_was_lost() {
    let workspace = TestWorkspace::unsafe_local();
    for code in ["print(1)", "print(2)"] {
        let ran = workspace.hailer(&["exec", "-c", code]);
        assert!(ran.status.success(), "{}", said(&ran));
    }
    let stopped = workspace.hailer(&["daemon", "stop"]);
    assert!(stopped.status.success(), "{}", said(&stopped));
    let intact = workspace.hailer(&["audit", "verify"]);
    assert!(intact.status.success(), "{}", said(&intact));
    assert!(
        stdout(&intact).ends_with("the last one where Hailer's data folder says the trail ends.\n"),
        "{}",
        said(&intact)
    );

    let state = workspace.path().join(".hailer");
    let trail = state.join("audit.jsonl");
    let head = state.join("audit.head");
    let text = std::fs::read_to_string(&trail).unwrap();
    let count = text.lines().count();
    // Each run has a record before it and one after; the kernel's start and stop have theirs.
    assert!(count >= 6, "{text}");

    // The last record and the head beside the trail, removed together.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&trail, lines[..count - 1].join("\n") + "\n").unwrap();
    std::fs::remove_file(&head).unwrap();
    refused_with(
        &workspace,
        &format!(
            "audit.jsonl line {}: records {count} to {count} after this line were removed",
            count - 1
        ),
    );

    // The whole trail removed.
    std::fs::remove_file(&trail).unwrap();
    let gone = format!(
        "audit.jsonl: the whole trail was removed or emptied: records 1 to {count} are gone"
    );
    refused_with(&workspace, &gone);

    // Emptied.
    std::fs::write(&trail, "").unwrap();
    refused_with(&workspace, &gone);

    // A link to /dev/null in its place.
    std::fs::remove_file(&trail).unwrap();
    std::os::unix::fs::symlink("/dev/null", &trail).unwrap();
    refused_with(
        &workspace,
        &format!(
            "audit.jsonl: is not a regular file (a link, a device or a folder stands in its \
             place): the trail was replaced and the records in it (up to record {count}) are lost"
        ),
    );

    restore(&trail, &text);
    let again = workspace.hailer(&["audit", "verify"]);
    assert!(again.status.success(), "{}", said(&again));
}

#[test]
fn a_trail_that_cannot_be_written_keeps_the_code_from_running_and_says_why() {
    let workspace = TestWorkspace::unsafe_local();
    let ran = workspace.hailer(&["exec", "-c", "print(1)"]);
    assert!(ran.status.success(), "{}", said(&ran));

    let trail = workspace.path().join(".hailer/audit.jsonl");
    let kept = std::fs::read_to_string(&trail).unwrap();
    std::fs::remove_file(&trail).unwrap();
    std::os::unix::fs::symlink("/dev/null", &trail).unwrap();
    let marker = workspace.path().join("ran.txt");
    let code = format!("open({:?}, 'w').write('ran')", marker.display().to_string());
    let refused = workspace.hailer(&["exec", "-c", &code]);
    assert!(!refused.status.success(), "{}", said(&refused));
    let told = said(&refused);
    assert!(
        told.contains("the code was not run: the audit trail cannot be written: ")
            && told.contains("audit.jsonl is not a regular file"),
        "{told}"
    );
    assert!(
        told.contains("make it a regular file you can write, then run again"),
        "{told}"
    );
    assert!(!marker.exists(), "the code ran");

    // A writable trail again: the next run is recorded and runs.
    restore(&trail, &kept);
    let ran = workspace.hailer(&["exec", "-c", &code]);
    assert!(ran.status.success(), "{}", said(&ran));
    assert!(marker.exists());
    let _ = workspace.hailer(&["daemon", "stop"]);
}
