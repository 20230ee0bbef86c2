//! Which kind of drive a folder is on. Only Windows has mapped network drives (`Z:` pointing at
//! `\\server\share`), which Docker Desktop usually cannot mount; a share named directly is a
//! `path_model::Root::Share`.

use std::path::Path;

/// Whether `path` lies on a mapped network drive (never on Unix).
pub fn is_mapped_network_drive(path: &Path) -> bool {
    #[cfg(windows)]
    {
        windows::is_remote(path)
    }
    #[cfg(not(windows))]
    {
        let _ = path;
        false
    }
}

#[cfg(windows)]
mod windows {
    #![allow(unsafe_code)]

    use std::path::{Component, Path, Prefix};

    use windows_sys::Win32::Storage::FileSystem::GetDriveTypeW;
    use windows_sys::Win32::System::WindowsProgramming::DRIVE_REMOTE;

    pub(super) fn is_remote(path: &Path) -> bool {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let Some(Component::Prefix(prefix)) = absolute.components().next() else {
            return false;
        };
        let (Prefix::Disk(letter) | Prefix::VerbatimDisk(letter)) = prefix.kind() else {
            return false;
        };
        let root: Vec<u16> = format!("{}:\\", char::from(letter))
            .encode_utf16()
            .chain([0])
            .collect();
        // SAFETY: `root` is a NUL-terminated wide string.
        unsafe { GetDriveTypeW(root.as_ptr()) == DRIVE_REMOTE }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_temporary_folder_is_not_a_network_drive() {
        assert!(!is_mapped_network_drive(&std::env::temp_dir()));
    }
}
