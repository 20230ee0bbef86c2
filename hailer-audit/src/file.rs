//! Appending to the trail: mode 0600, append-only, rotated by size with the rotated files
//! kept, and the head (last record's seq and line hash) kept beside it.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hailer_protocol::AuditEntry;

use crate::chain::{GENESIS, line_hash};
use crate::trail::{FILE_NAME, trail_files};
use crate::{Error, Result};

/// The current file is rotated once it would grow past this many bytes.
pub const ROTATE_BYTES: u64 = 16 * 1024 * 1024;

/// The head file's name beside the trail.
pub const HEAD_FILE: &str = "audit.head";

/// The trail of one workspace, open for appending.
#[derive(Debug)]
pub struct AuditFile {
    dir: PathBuf,
    file: File,
    head: File,
    size: u64,
    rotate_bytes: u64,
    seq: u64,
    prev: String,
}

impl AuditFile {
    /// Opens (or creates) the trail in `state_dir`, continuing its chain.
    pub fn open(state_dir: &Path, rotate_bytes: u64) -> Result<Self> {
        std::fs::create_dir_all(state_dir).map_err(Error::io("create", state_dir))?;
        let (seq, prev) = match last_line(state_dir)? {
            Some(line) => {
                let seq = serde_json::from_str::<AuditEntry>(&line)
                    .map(|entry| entry.seq)
                    .unwrap_or_default();
                (seq, line_hash(&line))
            }
            None => (0, GENESIS.to_owned()),
        };
        let path = state_dir.join(FILE_NAME);
        let file = open_append(&path)?;
        let size = file.metadata().map_err(Error::io("inspect", &path))?.len();
        let head_path = state_dir.join(HEAD_FILE);
        let head = private(OpenOptions::new().write(true).create(true).truncate(false))
            .open(&head_path)
            .map_err(Error::io("open", &head_path))?;
        Ok(Self {
            dir: state_dir.to_path_buf(),
            file,
            head,
            size,
            rotate_bytes,
            seq,
            prev,
        })
    }

    /// Writes `entry` as the next line: its `seq` and `prev` are set here. The line written.
    pub fn append(&mut self, mut entry: AuditEntry) -> Result<String> {
        entry.seq = self.seq + 1;
        entry.prev.clone_from(&self.prev);
        let line = serde_json::to_string(&entry).unwrap_or_default();
        let bytes = line.len() as u64 + 1;
        if self.size > 0 && self.size + bytes > self.rotate_bytes {
            self.rotate()?;
        }
        let path = self.dir.join(FILE_NAME);
        let mut buffer = line.clone().into_bytes();
        buffer.push(b'\n');
        self.file
            .write_all(&buffer)
            .map_err(Error::io("append to", &path))?;
        self.size += bytes;
        self.seq = entry.seq;
        self.prev = line_hash(&line);
        // Fixed width, so the head is always overwritten whole.
        let head = format!("{:020} {}\n", self.seq, self.prev);
        let head_path = self.dir.join(HEAD_FILE);
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

/// The trail's last line: from the newest file that has one (only that file is read).
fn last_line(state_dir: &Path) -> Result<Option<String>> {
    for file in trail_files(state_dir)?.iter().rev() {
        let bytes = std::fs::read(file).map_err(Error::io("read", file))?;
        if let Some(line) = String::from_utf8_lossy(&bytes).lines().last() {
            return Ok(Some(line.to_owned()));
        }
    }
    Ok(None)
}

fn open_append(path: &Path) -> Result<File> {
    private(OpenOptions::new().append(true).create(true))
        .open(path)
        .map_err(Error::io("open", path))
}

/// Files only the user may read (0600) where modes exist; on Windows the workspace's folder's
/// own access list applies.
fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
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
