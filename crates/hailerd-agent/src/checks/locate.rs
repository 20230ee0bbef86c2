//! Finding the checker programs: the path `[checks]` names, else next to the unsafe-local
//! kernel's Python (its environment has ruff), else on the daemon's PATH.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Where `name` is, or why it could not be found.
pub(super) fn find(
    name: &str,
    configured: Option<&Path>,
    kernel_python: Option<&Path>,
    search_path: Option<&OsStr>,
) -> Result<PathBuf, String> {
    if let Some(configured) = configured {
        let is_path = configured.components().count() > 1 || configured.is_absolute();
        if is_path {
            return if configured.is_file() {
                Ok(configured.to_path_buf())
            } else {
                Err(format!(
                    "{name} was not found at {} ([checks] {name} in hailer.toml)",
                    configured.display()
                ))
            };
        }
        return on_path(configured.as_os_str(), search_path).ok_or_else(|| {
            format!(
                "{} ([checks] {name} in hailer.toml) is not on PATH",
                configured.display()
            )
        });
    }
    // `ruff.exe` on Windows, in the environment's `Scripts` folder beside its `python.exe`.
    let file_name = hailer_platform::executable_name(hailer_platform::Os::CURRENT, name);
    if let Some(beside) = kernel_python
        .and_then(Path::parent)
        .map(|bin| bin.join(&file_name))
        .filter(|candidate| candidate.is_file())
    {
        return Ok(beside);
    }
    on_path(OsStr::new(&file_name), search_path).ok_or_else(|| {
        format!("{name} was not found on PATH; install it or set [checks] {name} in hailer.toml")
    })
}

fn on_path(name: &OsStr, search_path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(search_path?)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn configured_beside_kernel_then_path() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("ruff"), "").unwrap();
        std::fs::write(bin.join("python"), "").unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("ty"), "").unwrap();
        let path_var = std::env::join_paths([&other]).unwrap();

        let python = bin.join("python");
        assert_eq!(
            find("ruff", None, Some(&python), Some(&path_var)).unwrap(),
            bin.join("ruff")
        );
        assert_eq!(
            find("ty", None, Some(&python), Some(&path_var)).unwrap(),
            other.join("ty")
        );
        assert_eq!(
            find("ty", Some(Path::new("ty")), None, Some(&path_var)).unwrap(),
            other.join("ty")
        );
        let missing = find(
            "ruff",
            Some(&dir.path().join("nothing")),
            Some(&python),
            None,
        );
        assert!(missing.unwrap_err().contains("[checks] ruff"));
        assert!(find("ruff", None, None, None).is_err());
    }
}
