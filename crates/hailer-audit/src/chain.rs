//! The hash chain: each line carries the SHA-256 of the line before it, so a changed or
//! removed line is found and named.

use hailer_protocol::AuditEntry;

use crate::anchor::Head;
use crate::trail::{FILE_NAME, Line};

/// The `prev` of the trail's first record.
pub(crate) const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The SHA-256 of one line exactly as written (without its newline), in hex.
pub(crate) fn line_hash(line: &str) -> String {
    crate::sha256_hex(line)
}

/// Where the chain breaks, and what that means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// `audit.jsonl line 3`: the line that was changed, or the one after a removal.
    pub place: String,
    /// What is wrong there, for a person (`was changed: its code no longer matches its SHA-256`).
    pub message: String,
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

fn place(line: &Line) -> String {
    let name = line
        .file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name} line {}", line.number)
}

/// Checks every line follows the one before it and, when the trail's head is known (`head`:
/// the last record's seq and line hash, as the writer keeps it), that nothing after the last
/// line was removed: not the last records, not the whole trail. The number of records on
/// success.
pub(crate) fn verify(lines: &[Line], head: Option<&Head>) -> Result<usize, Break> {
    let mut previous: Option<(&Line, u64)> = None;
    for line in lines {
        let entry: AuditEntry = serde_json::from_str(&line.text).map_err(|error| Break {
            place: place(line),
            message: format!("is not an audit record ({error}): it was changed"),
        })?;
        check_own_digest(line, &entry)?;
        match previous {
            None => {
                if entry.seq != 1 || entry.prev != GENESIS {
                    return Err(Break {
                        place: place(line),
                        message: format!(
                            "the trail starts at record {}: the records before it were removed",
                            entry.seq
                        ),
                    });
                }
            }
            Some((before, before_seq)) => {
                let expected = line_hash(&before.text);
                if entry.seq > before_seq + 1 {
                    return Err(Break {
                        place: place(line),
                        message: format!(
                            "records {} to {} before this line were removed",
                            before_seq + 1,
                            entry.seq - 1
                        ),
                    });
                }
                if entry.seq != before_seq + 1 {
                    return Err(Break {
                        place: place(line),
                        message: format!(
                            "its record number {} does not follow {before_seq}: it was changed",
                            entry.seq
                        ),
                    });
                }
                if entry.prev != expected {
                    return Err(Break {
                        place: place(before),
                        message: format!(
                            "was changed: the next line records its SHA-256 as {}, it is now {expected}",
                            entry.prev
                        ),
                    });
                }
            }
        }
        previous = Some((line, entry.seq));
    }
    match (head, previous) {
        (Some(head), None) if head.seq > 0 => Err(Break {
            place: FILE_NAME.to_owned(),
            message: format!(
                "the whole trail was removed or emptied: records 1 to {} are gone",
                head.seq
            ),
        }),
        (Some(head), Some((last, last_seq))) if !ends_at(head, last, last_seq) => Err(Break {
            place: place(last),
            message: if head.seq > last_seq {
                format!(
                    "records {} to {} after this line were removed",
                    last_seq + 1,
                    head.seq
                )
            } else {
                "was changed: it is not the last record the daemon wrote".to_owned()
            },
        }),
        _ => Ok(lines.len()),
    }
}

/// Whether the trail ending with `last` ends where `head` says: at the head's record, or one
/// record past it when that record follows the head (the head's own update was cut short).
pub(crate) fn ends_at(head: &Head, last: &Line, last_seq: u64) -> bool {
    if last_seq == head.seq {
        return line_hash(&last.text) == head.hash;
    }
    last_seq == head.seq + 1
        && serde_json::from_str::<AuditEntry>(&last.text).is_ok_and(|entry| entry.prev == head.hash)
}

/// A record whose code or URL no longer matches its digest was changed (masked text cannot be
/// checked: its digest is of the text before masking).
fn check_own_digest(line: &Line, entry: &AuditEntry) -> Result<(), Break> {
    let (Some(text), Some(digest)) = (entry.code.as_ref().or(entry.url.as_ref()), &entry.sha256)
    else {
        return Ok(());
    };
    if text.contains("[redacted]") || crate::sha256_hex(text) == *digest {
        return Ok(());
    }
    Err(Break {
        place: place(line),
        message: "was changed: its code no longer matches its SHA-256".to_owned(),
    })
}
