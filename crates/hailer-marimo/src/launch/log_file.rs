//! The server's log file: `.hailer/marimo-<pid>.log`, readable by the user only.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};

use secrecy::SecretString;

use crate::access_token::mask_token;
use crate::error::{Error, Result};

/// How many lines a log tail shows.
pub(super) const TAIL_LINES: usize = 15;
/// How much of the end of the log is read for a tail.
const TAIL_BYTES: u64 = 64 * 1024;

/// Creates (truncating) the log file for this process under `<workspace>/.hailer/`.
pub(super) fn create_log(workspace: &Path) -> Result<(PathBuf, File)> {
    let state_dir = hailer_platform::ensure_state_folder_in(workspace).map_err(|e| {
        let state_dir = hailer_platform::state_folder_of(workspace);
        Error::io(format!("could not create {}", state_dir.display()), e)
    })?;
    let path = state_dir.join(format!("marimo-{}.log", std::process::id()));
    let file = hailer_platform::private_open_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)
        .map_err(|e| Error::io(format!("could not create {}", path.display()), e))?;
    Ok((path, file))
}

/// The last [`TAIL_LINES`] lines of the log with the token masked ("" if unreadable).
pub(super) fn masked_tail(path: &Path, token: &SecretString) -> String {
    let Ok(mut file) = File::open(path) else {
        return String::new();
    };
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    if file
        .seek(SeekFrom::Start(length.saturating_sub(TAIL_BYTES)))
        .is_err()
    {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file.read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    mask_token(&tail, token)
}

/// Deletes the log; a missing file is fine.
pub(super) fn remove_log(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(path = %path.display(), error = %e, "could not delete the marimo log");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::io::Write as _;

    #[test]
    fn the_log_is_private_and_its_tail_masks_the_token() {
        let workspace = tempfile::tempdir().unwrap();
        let (path, mut file) = create_log(workspace.path()).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        for i in 0..30 {
            writeln!(file, "line {i}").unwrap();
        }
        writeln!(file, "URL: http://localhost:2718?access_token=s3cr3t").unwrap();
        let tail = masked_tail(&path, &SecretString::from("s3cr3t"));
        assert_eq!(tail.lines().count(), TAIL_LINES);
        assert!(tail.ends_with("access_token=<token>"), "{tail}");
        assert!(!tail.contains("s3cr3t"));
        remove_log(&path);
        assert!(!path.exists());
    }
}
