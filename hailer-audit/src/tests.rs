#![allow(clippy::unwrap_used, clippy::expect_used)]

use hailer_protocol::{AuditEntry, AuditKind, AuditOutcome};

use super::*;

fn entry(code: &str) -> AuditEntry {
    AuditEntry {
        seq: 0,
        time: format_rfc3339(0),
        kind: AuditKind::Exec,
        session: "s_1".to_owned(),
        turn: None,
        client: "api".to_owned(),
        notebook: None,
        code: Some(code.to_owned()),
        url: None,
        sha256: Some(sha256_hex(code)),
        outcome: Some(AuditOutcome::Ok),
        duration_ms: Some(1),
        output_bytes: Some(0),
        detail: None,
        prev: String::new(),
    }
}

fn write(dir: &std::path::Path, count: usize, rotate: u64) {
    let mut file = AuditFile::open(dir, rotate).unwrap();
    for index in 0..count {
        file.append(entry(&format!("print({index})"))).unwrap();
    }
}

#[test]
fn a_written_trail_verifies_and_continues_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 3, ROTATE_BYTES);
    write(dir.path(), 2, ROTATE_BYTES);
    assert_eq!(verify_dir(dir.path()).unwrap(), Ok(5));
    let lines = read_trail(dir.path()).unwrap();
    let last: AuditEntry = serde_json::from_str(&lines[4].text).unwrap();
    assert_eq!(last.seq, 5);
    assert_eq!(last.prev, line_hash(&lines[3].text));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.path().join(FILE_NAME))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn rotation_keeps_every_file_and_the_chain_runs_across_them() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 10, 600);
    let files = trail_files(dir.path()).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    assert_eq!(verify_dir(dir.path()).unwrap(), Ok(10));
}

#[test]
fn a_changed_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 4, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("print(1)", "print(7)")).unwrap();
    let broken = verify_dir(dir.path()).unwrap().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 2");
    assert!(broken.message.contains("changed"), "{broken}");
}

#[test]
fn a_changed_line_with_its_digest_recomputed_is_named_by_the_next_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 4, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text
        .replace("print(1)", "print(7)")
        .replace(&sha256_hex("print(1)"), &sha256_hex("print(7)"));
    std::fs::write(&path, changed).unwrap();
    let broken = verify_dir(dir.path()).unwrap().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 2");
}

#[test]
fn removed_lines_are_named_in_the_middle_and_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 5, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let without_third = [lines[0], lines[1], lines[3], lines[4]].join("\n") + "\n";
    std::fs::write(&path, without_third).unwrap();
    let broken = verify_dir(dir.path()).unwrap().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 3");
    assert!(broken.message.contains("records 3 to 3"), "{broken}");

    let without_last = lines[..4].join("\n") + "\n";
    std::fs::write(&path, without_last).unwrap();
    let broken = verify_dir(dir.path()).unwrap().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 4");
    assert!(
        broken.message.contains("after this line were removed"),
        "{broken}"
    );
}

#[test]
fn a_line_that_is_not_json_is_named() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), 2, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen('{', "x", 1)).unwrap();
    let broken = verify_dir(dir.path()).unwrap().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 1");
}

#[test]
fn times_round_trip_and_since_reads_durations_and_dates() {
    let millis = parse_time("2026-12-02T00:41:12.345Z").unwrap();
    assert_eq!(format_rfc3339(millis), "2026-12-02T00:41:12.345Z");
    assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
    assert_eq!(
        parse_time("2024-02-29").map(format_rfc3339),
        Some("2024-02-29T00:00:00.000Z".to_owned())
    );
    assert_eq!(parse_since("2h", 10_000_000), Some(10_000_000 - 7_200_000));
    assert_eq!(parse_since("90s", 100_000), Some(10_000));
    assert_eq!(
        parse_since("2026-12-02 10:30", 0),
        parse_time("2026-12-02T10:30:00Z")
    );
    assert_eq!(parse_since("yesterday", 0), None);
    assert_eq!(parse_since("2026-13-01", 0), None);
}
