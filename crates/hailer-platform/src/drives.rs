//! Which kind of drive a folder is on. Only Windows has mapped network drives (`Z:` pointing at
//! `\\server\share`), which Docker Desktop usually cannot mount; a share named directly is a
//! `path_model::Root::Share`.
//!
//! [`drive_letter`] and [`is_network`] decide, as pure functions tested on every host; the
//! Windows side only asks the system about the letter (`GetDriveTypeW`, `WNetGetConnectionW`).

use std::path::Path;

use crate::Os;
use crate::path_model::{PathModel, Root};

/// What `GetDriveTypeW` says a drive's root is.
#[cfg_attr(not(windows), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DriveKind {
    /// `DRIVE_UNKNOWN`: the system cannot tell.
    Unknown,
    /// `DRIVE_NO_ROOT_DIR`: no volume is there (a disconnected mapped drive reads so).
    NoRootDir,
    /// `DRIVE_REMOVABLE`: a USB stick, a card.
    Removable,
    /// `DRIVE_FIXED`: a local disk.
    Fixed,
    /// `DRIVE_REMOTE`: a network drive.
    Remote,
    /// `DRIVE_CDROM`.
    CdRom,
    /// `DRIVE_RAMDISK`.
    RamDisk,
}

#[cfg_attr(not(windows), allow(dead_code))]
impl DriveKind {
    /// The kind `GetDriveTypeW`'s result `value` names (its documented values 0 to 6).
    pub(crate) fn from_drive_type(value: u32) -> Self {
        match value {
            1 => Self::NoRootDir,
            2 => Self::Removable,
            3 => Self::Fixed,
            4 => Self::Remote,
            5 => Self::CdRom,
            6 => Self::RamDisk,
            _ => Self::Unknown,
        }
    }
}

/// The drive letter `path` starts with, read as `os` reads paths (`C:`, `\\?\C:`; upper case),
/// `None` for a share, a relative path or another system's path.
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) fn drive_letter(os: Os, path: &str) -> Option<char> {
    match PathModel::parse(os, path).root {
        Root::Drive(letter) => Some(letter),
        Root::Relative | Root::Unix | Root::Share { .. } => None,
    }
}

/// Whether a drive is a network drive: the system calls it remote, or the letter is mapped to a
/// remote name (`\\server\share`), as a mapped drive is even while its server is unreachable.
#[cfg_attr(not(windows), allow(dead_code))]
pub(crate) fn is_network(kind: DriveKind, remote_name: Option<&str>) -> bool {
    kind == DriveKind::Remote || remote_name.is_some_and(|name| !name.trim().is_empty())
}

/// Whether `path` lies on a mapped network drive (never on Unix).
pub fn is_mapped_network_drive(path: &Path) -> bool {
    #[cfg(windows)]
    {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        drive_letter(Os::Windows, &absolute.to_string_lossy()).is_some_and(|letter| {
            let (kind, remote_name) = windows::drive_facts(letter);
            is_network(kind, remote_name.as_deref())
        })
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

    use windows_sys::Win32::Foundation::{ERROR_CONNECTION_UNAVAIL, ERROR_MORE_DATA, NO_ERROR};
    use windows_sys::Win32::NetworkManagement::WNet::WNetGetConnectionW;
    use windows_sys::Win32::Storage::FileSystem::GetDriveTypeW;

    use super::DriveKind;

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain([0]).collect()
    }

    /// What the system says about drive `letter`: its kind, and the remote name it is mapped to.
    pub(super) fn drive_facts(letter: char) -> (DriveKind, Option<String>) {
        let root = wide(&format!("{letter}:\\"));
        // SAFETY: `root` is a NUL-terminated wide string.
        let kind = DriveKind::from_drive_type(unsafe { GetDriveTypeW(root.as_ptr()) });
        (kind, remote_name(letter))
    }

    fn remote_name(letter: char) -> Option<String> {
        let local = wide(&format!("{letter}:"));
        let mut buffer = vec![0u16; 260];
        for _ in 0..2 {
            let mut length = u32::try_from(buffer.len()).ok()?;
            // SAFETY: `local` is NUL-terminated; `buffer` holds `length` characters.
            let status =
                unsafe { WNetGetConnectionW(local.as_ptr(), buffer.as_mut_ptr(), &mut length) };
            match status {
                // A mapped drive, connected or remembered while its server is unreachable.
                NO_ERROR | ERROR_CONNECTION_UNAVAIL => {
                    let end = buffer.iter().position(|&c| c == 0).unwrap_or(buffer.len());
                    return Some(String::from_utf16_lossy(&buffer[..end]));
                }
                ERROR_MORE_DATA => buffer = vec![0u16; length as usize + 1],
                // Not a mapped drive (ERROR_NOT_CONNECTED), or no network provider.
                _ => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_drives_by_kind_and_remote_name() {
        use DriveKind::{CdRom, Fixed, NoRootDir, RamDisk, Remote, Removable, Unknown};
        let table = [
            (Remote, Some(r"\\server\share"), true),
            (Remote, None, true),
            // Disconnected: no volume, but still mapped to a share.
            (NoRootDir, Some(r"\\server\sales"), true),
            (Unknown, Some(r"\\nas\data"), true),
            (Fixed, None, false),
            (Fixed, Some("  "), false),
            (Removable, None, false),
            (CdRom, None, false),
            (RamDisk, None, false),
            (NoRootDir, None, false),
        ];
        for (kind, remote_name, expected) in table {
            assert_eq!(
                is_network(kind, remote_name),
                expected,
                "{kind:?} {remote_name:?}"
            );
        }
    }

    #[test]
    fn drive_kinds_from_get_drive_type() {
        let table = [
            (0, DriveKind::Unknown),
            (1, DriveKind::NoRootDir),
            (2, DriveKind::Removable),
            (3, DriveKind::Fixed),
            (4, DriveKind::Remote),
            (5, DriveKind::CdRom),
            (6, DriveKind::RamDisk),
            (7, DriveKind::Unknown),
        ];
        for (value, kind) in table {
            assert_eq!(DriveKind::from_drive_type(value), kind, "{value}");
        }
    }

    #[test]
    fn drive_letters_of_windows_paths() {
        let table = [
            (r"Z:\Sales data\2024", Some('Z')),
            (r"z:\sales", Some('Z')),
            ("D:", Some('D')),
            (r"\\?\Y:\Zoë Ås\data", Some('Y')),
            (r"\\server\share\sales", None),
            (r"\\?\UNC\server\share\sales", None),
            (r"data\sales", None),
        ];
        for (path, expected) in table {
            assert_eq!(drive_letter(Os::Windows, path), expected, "{path}");
        }
        assert_eq!(drive_letter(Os::Linux, "/mnt/z"), None);
        assert_eq!(drive_letter(Os::MacOs, "/Volumes/Sales"), None);
    }

    #[test]
    fn a_local_temporary_folder_is_not_a_network_drive() {
        assert!(!is_mapped_network_drive(&std::env::temp_dir()));
    }
}
