//! The trail's head kept outside the workspace: the last record's seq and line hash, in Hailer's
//! data folder under a name made from the workspace's canonical root. Whoever can change the
//! workspace (a docker kernel, an agent's code, a synced folder) cannot change it, so a trail
//! removed, emptied, cut short or rewritten no longer ends where the anchor says.
//!
//! The same head is also kept beside the trail (`.hailer/audit.head`): it is what a trail
//! copied to another machine is checked against.

use std::fs::{File, OpenOptions};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::{Error, Result, regular};

/// The folder under Hailer's data folder that holds the anchors.
pub(crate) const ANCHORS_DIR: &str = "audit";

/// The anchor of the workspace at `workspace_root` under Hailer's data folder `data_dir`: named by
/// the SHA-256 of the root's canonical path, so every client and the daemon find the same one.
pub fn anchor_path(data_dir: &Path, workspace_root: &Path) -> PathBuf {
    let root = std::fs::canonicalize(workspace_root).unwrap_or_else(|_| workspace_root.into());
    let key = crate::sha256_hex(&root.to_string_lossy());
    data_dir
        .join(ANCHORS_DIR)
        .join(format!("{}.head", &key[..32]))
}

/// The last record written: its seq and the SHA-256 of its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) seq: u64,
    pub(crate) hash: String,
}

impl Head {
    /// The text written: fixed width, so a head always overwrites the one before whole.
    pub(crate) fn text(&self) -> String {
        format!("{:020} {}\n", self.seq, self.hash)
    }
}

/// The head in `path`: `None` when there is none; an error when it is not one Hailer wrote.
pub(crate) fn read(path: &Path) -> Result<Option<Head>> {
    let Some(mut file) = regular::open_to_read(path)? else {
        return Ok(None);
    };
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(Error::io("read", path))?;
    parse(&text).map(Some).ok_or_else(|| Error::NotAHead {
        path: path.to_path_buf(),
    })
}

fn parse(text: &str) -> Option<Head> {
    let (seq, hash) = text.lines().next()?.trim().split_once(' ')?;
    let valid_hash = hash.len() == 64 && hash.bytes().all(|byte| byte.is_ascii_hexdigit());
    let seq = seq.parse().ok()?;
    valid_hash.then(|| Head {
        seq,
        hash: hash.to_owned(),
    })
}

/// Opens (or creates) the head file at `path` for writing, its folder made when missing.
pub(crate) fn open_for_writing(path: &Path) -> Result<File> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(Error::io("create", parent))?;
    }
    regular::open(
        path,
        OpenOptions::new().write(true).create(true).truncate(false),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_head_reads_back_and_anything_else_is_not_one() {
        let head = Head {
            seq: 42,
            hash: "ab".repeat(32),
        };
        assert_eq!(parse(&head.text()), Some(head));
        assert_eq!(parse(""), None);
        assert_eq!(parse("12 short"), None);
        assert_eq!(parse(&format!("x {}", "ab".repeat(32))), None);
    }

    #[test]
    fn every_spelling_of_a_root_finds_the_same_anchor() {
        let data = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("sub")).unwrap();
        let direct = anchor_path(data.path(), root.path());
        let roundabout = anchor_path(data.path(), &root.path().join("sub").join(".."));
        assert_eq!(direct, roundabout);
        assert!(direct.starts_with(data.path().join(ANCHORS_DIR)));
        let other = tempfile::tempdir().unwrap();
        assert_ne!(direct, anchor_path(data.path(), other.path()));
    }
}
