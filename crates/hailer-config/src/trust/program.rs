//! What a program setting is trusted with: the path as written, where it leads once every link
//! on it is followed, and the content found there. A `git pull` that edits the script, or
//! retargets a link on its path, changes what the setting is and asks again; so does an upgrade
//! of the program it names.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::GatedSetting;
use crate::paths;
use crate::sanitize::escape_visible;

/// How much of a program file the digest reads; a longer file is covered by this much and its
/// length.
const PROGRAM_DIGEST_BYTES: u64 = 64 * 1024 * 1024;

/// The gated setting for the program `name` (`[checks] ruff`) names: `path`, resolved against
/// the workspace when relative.
pub(super) fn setting(name: &str, path: &Path, workspace: &Path) -> GatedSetting {
    let shown = escape_visible(&paths::display_relative(workspace, path));
    GatedSetting {
        name: name.to_owned(),
        provider: None,
        effect: format!("runs {shown} on this machine"),
        variables: Vec::new(),
        exact: exact(name, path, workspace),
        status: super::SettingStatus::default(),
        program: Some(path.to_path_buf()),
    }
}

/// The setting and what it leads to now, as the digest covers it. A bare command name (looked
/// up on PATH when it runs) is covered by its name.
fn exact(name: &str, path: &Path, workspace: &Path) -> String {
    let written = format!("{name} = {:?}", path.display().to_string());
    if !is_path(path) {
        return written;
    }
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace.join(path)
    };
    match std::fs::canonicalize(&path) {
        Ok(real) => format!(
            "{written} -> {:?} ({})",
            real.display().to_string(),
            content(&real)
        ),
        // A program that is not there (yet) is trusted as missing: one that appears asks again.
        Err(_) => format!("{written} (missing)"),
    }
}

/// Whether a program setting names a file rather than a command looked up on PATH.
fn is_path(path: &Path) -> bool {
    path.is_absolute() || path.components().count() > 1
}

/// `sha256:<hex>` of the file's first 64 MiB and its length, or why it could not be read.
fn content(real: &PathBuf) -> String {
    let mut hasher = Sha256::new();
    let read = std::fs::File::open(real).and_then(|file| {
        let length = file.metadata()?.len();
        let mut limited = file.take(PROGRAM_DIGEST_BYTES);
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let n = limited.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
        }
        Ok(length)
    });
    match read {
        Ok(length) => {
            hasher.update(length.to_le_bytes());
            format!("sha256:{}", hex::encode(hasher.finalize()))
        }
        Err(error) => format!("unreadable: {}", error.kind()),
    }
}

impl GatedSetting {
    /// For a program setting: whether the program is still what this load judged (the same
    /// links, the same content). Check it right before the program is started, so a script
    /// edited after the session read its configuration does not run as the trusted one. Always
    /// true for settings that name no program.
    pub fn program_unchanged(&self, workspace: &Path) -> bool {
        self.program
            .as_deref()
            .is_none_or(|path| exact(&self.name, path, workspace) == self.exact)
    }
}
