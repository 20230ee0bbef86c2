#![allow(clippy::unwrap_used, clippy::expect_used)]

use hailer_protocol::{AuditEntry, AuditKind, AuditOutcome};

use super::*;
use crate::chain::line_hash;
use crate::trail::trail_files;

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

/// A workspace's state folder and Hailer's data folder, with the trail's anchor in it.
struct Place {
    state: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Place {
    fn new() -> Self {
        Self {
            state: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &std::path::Path {
        self.state.path()
    }

    fn anchor(&self) -> std::path::PathBuf {
        anchor_path(self.data.path(), self.state.path())
    }

    fn verify(&self) -> std::result::Result<usize, Break> {
        verify_dir(self.path(), &self.anchor())
            .unwrap()
            .map(|verified| verified.records)
    }
}

fn write(place: &Place, count: usize, rotate: u64) {
    let mut file = AuditFile::open(place.path(), &place.anchor(), rotate).unwrap();
    for index in 0..count {
        file.append(entry(&format!("print({index})"))).unwrap();
    }
}

#[test]
fn a_written_trail_verifies_and_continues_after_reopening() {
    let dir = Place::new();
    write(&dir, 3, ROTATE_BYTES);
    write(&dir, 2, ROTATE_BYTES);
    assert_eq!(dir.verify(), Ok(5));
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
    let dir = Place::new();
    write(&dir, 10, 600);
    let files = trail_files(dir.path()).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    assert_eq!(dir.verify(), Ok(10));
}

#[test]
fn a_changed_line_is_named() {
    let dir = Place::new();
    write(&dir, 4, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("print(1)", "print(7)")).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 2");
    assert!(broken.message.contains("changed"), "{broken}");
}

#[test]
fn a_changed_line_with_its_digest_recomputed_is_named_by_the_next_line() {
    let dir = Place::new();
    write(&dir, 4, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text
        .replace("print(1)", "print(7)")
        .replace(&sha256_hex("print(1)"), &sha256_hex("print(7)"));
    std::fs::write(&path, changed).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 2");
}

#[test]
fn removed_lines_are_named_in_the_middle_and_at_the_end() {
    let dir = Place::new();
    write(&dir, 5, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let without_third = [lines[0], lines[1], lines[3], lines[4]].join("\n") + "\n";
    std::fs::write(&path, without_third).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 3");
    assert!(broken.message.contains("records 3 to 3"), "{broken}");

    let without_last = lines[..4].join("\n") + "\n";
    std::fs::write(&path, without_last).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 4");
    assert!(
        broken.message.contains("after this line were removed"),
        "{broken}"
    );
}

#[test]
fn a_line_that_is_not_json_is_named() {
    let dir = Place::new();
    write(&dir, 2, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen('{', "x", 1)).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 1");
}

#[test]
fn the_head_and_the_last_record_removed_together_are_named_by_the_anchor() {
    let dir = Place::new();
    write(&dir, 4, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&path, lines[..3].join("\n") + "\n").unwrap();
    std::fs::remove_file(dir.path().join(HEAD_FILE)).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 3");
    assert_eq!(
        broken.message,
        "records 4 to 4 after this line were removed"
    );
}

#[test]
fn a_removed_or_emptied_trail_is_named_and_stays_named_after_more_records() {
    let dir = Place::new();
    write(&dir, 3, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, "").unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl");
    assert_eq!(
        broken.message,
        "the whole trail was removed or emptied: records 1 to 3 are gone"
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(dir.path().join(HEAD_FILE)).unwrap();
    assert_eq!(dir.verify().unwrap_err(), broken);
    // The daemon goes on from the anchor: the loss stays visible.
    write(&dir, 1, ROTATE_BYTES);
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 1");
    assert!(
        broken.message.contains("the trail starts at record 4"),
        "{broken}"
    );
}

#[test]
fn a_rewritten_chain_does_not_end_at_the_anchor() {
    let dir = Place::new();
    write(&dir, 3, ROTATE_BYTES);
    // The whole trail written again, its chain consistent, with one record fewer.
    let other = Place::new();
    write(&other, 2, ROTATE_BYTES);
    std::fs::copy(other.path().join(FILE_NAME), dir.path().join(FILE_NAME)).unwrap();
    std::fs::copy(other.path().join(HEAD_FILE), dir.path().join(HEAD_FILE)).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl line 2");
    assert!(broken.message.contains("records 3 to 3"), "{broken}");
}

#[cfg(unix)]
#[test]
fn a_trail_linked_to_dev_null_is_neither_read_nor_written() {
    let dir = Place::new();
    write(&dir, 2, ROTATE_BYTES);
    let path = dir.path().join(FILE_NAME);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/null", &path).unwrap();
    let broken = dir.verify().unwrap_err();
    assert_eq!(broken.place, "audit.jsonl");
    assert!(
        broken.message.starts_with("is not a regular file"),
        "{broken}"
    );
    assert!(
        broken.message.ends_with("(up to record 2) are lost"),
        "{broken}"
    );
    let refused = AuditFile::open(dir.path(), &dir.anchor(), ROTATE_BYTES).unwrap_err();
    assert!(matches!(refused, Error::NotRegular { .. }), "{refused}");
}

#[cfg(unix)]
#[test]
fn a_trail_replaced_while_open_is_opened_again_or_refused() {
    let dir = Place::new();
    let mut file = AuditFile::open(dir.path(), &dir.anchor(), ROTATE_BYTES).unwrap();
    file.append(entry("print(1)")).unwrap();
    let path = dir.path().join(FILE_NAME);
    std::fs::remove_file(&path).unwrap();
    file.append(entry("print(2)")).unwrap();
    assert_eq!(read_trail(dir.path()).unwrap().len(), 1);
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/null", &path).unwrap();
    let refused = file.append(entry("print(3)")).unwrap_err();
    assert!(matches!(refused, Error::NotRegular { .. }), "{refused}");
}

#[test]
fn a_head_whose_own_update_was_cut_short_is_not_a_break() {
    let dir = Place::new();
    write(&dir, 2, ROTATE_BYTES);
    let anchor = std::fs::read_to_string(dir.anchor()).unwrap();
    write(&dir, 1, ROTATE_BYTES);
    std::fs::write(dir.anchor(), anchor).unwrap();
    assert_eq!(dir.verify(), Ok(3));
    write(&dir, 1, ROTATE_BYTES);
    assert_eq!(dir.verify(), Ok(4));
}

#[test]
fn a_trail_without_an_anchor_is_checked_against_the_head_beside_it() {
    let dir = Place::new();
    write(&dir, 2, ROTATE_BYTES);
    std::fs::remove_file(dir.anchor()).unwrap();
    let verified = verify_dir(dir.path(), &dir.anchor()).unwrap().unwrap();
    assert_eq!(
        verified,
        Verified {
            records: 2,
            anchored: false
        }
    );
    std::fs::write(dir.anchor(), "not a head").unwrap();
    let broken = dir.verify().unwrap_err();
    assert!(broken.message.contains("does not hold"), "{broken}");
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
