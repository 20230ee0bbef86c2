//! Appending to the trail: mode 0600, append-only, rotated by size with the rotated files
//! kept, and the head (last record's seq and line hash) kept in the anchor outside the
//! workspace and beside the trail.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hailer_protocol::AuditEntry;

use crate::anchor::{self, Head};
use crate::chain::{GENESIS, ends_at, line_hash};
use crate::trail::{FILE_NAME, Line, read_bytes, trail_files};
use crate::{Error, Result, regular};

/// The current file is rotated once it would grow past this many bytes.
pub const ROTATE_BYTES: u64 = 16 * 1024 * 1024;

/// The head file's name beside the trail.
pub(crate) const HEAD_FILE: &str = "audit.head";

/// The trail of one workspace, open for appending.
#[derive(Debug)]
pub struct AuditFile {
    dir: PathBuf,
    file: File,
    head: File,
    anchor_path: PathBuf,
    anchor: File,
    size: u64,
    rotate_bytes: u64,
    seq: u64,
    prev: String,
}

impl AuditFile {
    /// Opens (or creates) the trail in `state_dir`, its head anchored at `anchor` (see
    /// [`crate::anchor_path`]), continuing its chain.
    ///
    /// The chain continues from the anchored head whenever there is one: a trail removed,
    /// emptied or cut short since stays so, its new records numbered on from the anchor, and
    /// `verify` names what was lost.
    pub fn open(state_dir: &Path, anchor: &Path, rotate_bytes: u64) -> Result<Self> {
        hailer_platform::ensure_state_folder(state_dir).map_err(Error::io("create", state_dir))?;
        let path = state_dir.join(FILE_NAME);
        let file = open_append(&path)?;
        let size = file.metadata().map_err(Error::io("inspect", &path))?.len();
        let last = last_line(state_dir)?;
        let anchored = anchor::read(anchor)?;
        let head = continuation(last.as_ref(), anchored);
        let head_path = state_dir.join(crate::HEAD_FILE);
        let head_file = anchor::open_for_writing(&head_path)?;
        let anchor_file = anchor::open_for_writing(anchor)?;
        Ok(Self {
            dir: state_dir.to_path_buf(),
            file,
            head: head_file,
            anchor_path: anchor.to_path_buf(),
            anchor: anchor_file,
            size,
            rotate_bytes,
            seq: head.seq,
            prev: head.hash,
        })
    }

    /// Writes `entry` as the next line: its `seq` and `prev` are set here. The line written.
    /// The trail is opened again first when its file was removed or replaced meanwhile (and
    /// refused when a link stands in its place).
    pub fn append(&mut self, mut entry: AuditEntry) -> Result<String> {
        let path = self.dir.join(FILE_NAME);
        if !regular::still_names(&path, &self.file) {
            self.file = open_append(&path)?;
            self.size = self
                .file
                .metadata()
                .map_err(Error::io("inspect", &path))?
                .len();
        }
        entry.seq = self.seq + 1;
        entry.prev.clone_from(&self.prev);
        let line = serde_json::to_string(&entry).unwrap_or_default();
        let bytes = line.len() as u64 + 1;
        if self.size > 0 && self.size + bytes > self.rotate_bytes {
            self.rotate()?;
        }
        let mut buffer = line.clone().into_bytes();
        buffer.push(b'\n');
        self.file
            .write_all(&buffer)
            .map_err(Error::io("append to", &path))?;
        self.size += bytes;
        self.seq = entry.seq;
        self.prev = line_hash(&line);
        let head = Head {
            seq: self.seq,
            hash: self.prev.clone(),
        }
        .text();
        write_all_at(&self.anchor, head.as_bytes())
            .map_err(Error::io("write", &self.anchor_path))?;
        let head_path = self.dir.join(crate::HEAD_FILE);
        write_all_at(&self.head, head.as_bytes()).map_err(Error::io("write", &head_path))?;
        Ok(line)
    }

    /// Renames the current file to the next free `audit.jsonl.<n>` and starts a new one.
    fn rotate(&mut self) -> Result<()> {
        let next = trail_files(&self.dir)?
            .iter()
            .filter_map(|path| path.extension()?.to_str()?.parse::<u64>().ok())
            .max()
            .unwrap_or(0)
            + 1;
        let current = self.dir.join(FILE_NAME);
        let rotated = self.dir.join(format!("{FILE_NAME}.{next}"));
        std::fs::rename(&current, &rotated).map_err(Error::io("rotate", &current))?;
        self.file = open_append(&current)?;
        self.size = 0;
        Ok(())
    }
}

/// Where the chain goes on: from the trail's last line when it ends where the anchor says (or
/// when nothing is anchored yet), else from the anchor.
fn continuation(last: Option<&Line>, anchored: Option<Head>) -> Head {
    let from_last = last.map(|line| Head {
        seq: serde_json::from_str::<AuditEntry>(&line.text)
            .map(|entry| entry.seq)
            .unwrap_or_default(),
        hash: line_hash(&line.text),
    });
    match (anchored, from_last) {
        (Some(anchored), Some(from_last))
            if last.is_some_and(|line| ends_at(&anchored, line, from_last.seq)) =>
        {
            from_last
        }
        (Some(anchored), _) => anchored,
        (None, Some(from_last)) => from_last,
        (None, None) => Head {
            seq: 0,
            hash: GENESIS.to_owned(),
        },
    }
}

/// The trail's last line: from the newest file that has one (only that file is read).
fn last_line(state_dir: &Path) -> Result<Option<Line>> {
    for file in trail_files(state_dir)?.iter().rev() {
        let bytes = read_bytes(file)?;
        let text = String::from_utf8_lossy(&bytes);
        if let Some((index, line)) = text.lines().enumerate().last() {
            return Ok(Some(Line {
                file: file.clone(),
                number: index + 1,
                text: line.to_owned(),
            }));
        }
    }
    Ok(None)
}

fn open_append(path: &Path) -> Result<File> {
    regular::open(path, OpenOptions::new().append(true).create(true))
}

/// Writes `bytes` at the start of `file`, whole, without moving a shared cursor.
fn write_all_at(file: &File, bytes: &[u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt as _;
        file.write_all_at(bytes, 0)
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt as _;
        let mut written = 0;
        while written < bytes.len() {
            let offset = u64::try_from(written).unwrap_or(u64::MAX);
            match file.seek_write(&bytes[written..], offset)? {
                0 => return Err(std::io::ErrorKind::WriteZero.into()),
                n => written += n,
            }
        }
        Ok(())
    }
}
