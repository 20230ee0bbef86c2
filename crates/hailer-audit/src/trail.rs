//! The trail's files in order (the rotated ones, oldest first, then the current one) and their
//! lines.

use std::path::{Path, PathBuf};

use std::io::Read as _;

use crate::{Error, Result, regular};

/// The current file's name in `.hailer/`; rotated files add `.1`, `.2`, ...
pub const FILE_NAME: &str = "audit.jsonl";

/// One line of the trail, where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The trail file it is in (`audit.jsonl` or a rotated one).
    pub file: PathBuf,
    /// From 1 within its file.
    pub number: usize,
    /// The line as written, without its newline.
    pub text: String,
}

/// The trail's files in `state_dir`, oldest first; those that exist (a link in a file's place
/// is listed: reading it is refused).
pub(crate) fn trail_files(state_dir: &Path) -> Result<Vec<PathBuf>> {
    let mut rotated: Vec<(u64, PathBuf)> = Vec::new();
    let entries = match std::fs::read_dir(state_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(Error::io("read", state_dir)(error)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(number) = name
            .strip_prefix(FILE_NAME)
            .and_then(|rest| rest.strip_prefix('.'))
            .and_then(|number| number.parse::<u64>().ok())
        {
            rotated.push((number, entry.path()));
        }
    }
    rotated.sort();
    let mut files: Vec<PathBuf> = rotated.into_iter().map(|(_, path)| path).collect();
    let current = state_dir.join(FILE_NAME);
    if regular::is_present(&current) {
        files.push(current);
    }
    Ok(files)
}

/// Every line of the trail, oldest first. A last line without its newline (a write cut
/// short) is included as it is; the chain check names it. A file of the trail that is not a
/// regular file (a link to `/dev/null`, say) is an error.
pub fn read_trail(state_dir: &Path) -> Result<Vec<Line>> {
    let mut lines = Vec::new();
    for file in trail_files(state_dir)? {
        let bytes = read_bytes(&file)?;
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            lines.push(Line {
                file: file.clone(),
                number: index + 1,
                text: line.to_owned(),
            });
        }
    }
    Ok(lines)
}

/// The bytes of the trail's file at `path` (none when it is gone meanwhile).
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Some(mut file) = regular::open_to_read(path)? {
        file.read_to_end(&mut bytes)
            .map_err(Error::io("read", path))?;
    }
    Ok(bytes)
}
