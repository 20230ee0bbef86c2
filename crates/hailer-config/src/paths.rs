//! Path helpers shared by discovery, validation, mount rules and init.

use std::path::{Component, Path, PathBuf};

/// Makes `path` absolute against `base` and removes `.` and `..` lexically (no file system).
pub(crate) fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    };
    normalize(&joined)
}

/// Removes `.` components and folds `..` into its parent, without touching the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Resolves a path written in the configuration: `~/...` against the home folder, relative
/// paths against the workspace.
pub(crate) fn resolve_setting(workspace: &Path, home: Option<&Path>, written: &str) -> PathBuf {
    let tilde_rest = written
        .strip_prefix("~/")
        .or_else(|| written.strip_prefix("~\\"))
        .or_else(|| (written == "~").then_some(""));
    match (tilde_rest, home) {
        (Some(rest), Some(home)) => absolute(home, Path::new(rest)),
        _ => absolute(workspace, Path::new(written)),
    }
}

/// Follows every symlink in the part of `path` that exists and appends the rest unchanged, so
/// a folder that does not exist yet still compares correctly with its real parents.
pub(crate) fn resolve_existing(path: &Path) -> PathBuf {
    let path = normalize(path);
    let mut existing = path.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return path,
        }
    }
}

/// `path` relative to `base` when it is inside it, else `path` itself, for messages.
pub(crate) fn display_relative(base: &Path, path: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_tilde_and_dot_dot() {
        let ws = Path::new("/w/s");
        let home = Path::new("/home/u");
        assert_eq!(
            resolve_setting(ws, Some(home), "data"),
            PathBuf::from("/w/s/data")
        );
        assert_eq!(
            resolve_setting(ws, Some(home), "./a/../b"),
            PathBuf::from("/w/s/b")
        );
        assert_eq!(
            resolve_setting(ws, Some(home), "../x"),
            PathBuf::from("/w/x")
        );
        assert_eq!(
            resolve_setting(ws, Some(home), "~/d"),
            PathBuf::from("/home/u/d")
        );
        assert_eq!(resolve_setting(ws, None, "~/d"), PathBuf::from("/w/s/~/d"));
        assert_eq!(
            resolve_setting(ws, Some(home), "/abs"),
            PathBuf::from("/abs")
        );
        assert_eq!(normalize(Path::new("/../..")), PathBuf::from("/"));
        assert_eq!(normalize(Path::new("../../x")), PathBuf::from("../../x"));
        assert_eq!(normalize(Path::new("a/../../b")), PathBuf::from("../b"));
    }

    #[test]
    fn displays_relative_to_the_workspace() {
        let ws = Path::new("/w");
        assert_eq!(
            display_relative(ws, Path::new("/w/hailer.toml")),
            "hailer.toml"
        );
        assert_eq!(display_relative(ws, Path::new("/w")), ".");
        assert_eq!(display_relative(ws, Path::new("/x/y")), "/x/y");
    }
}
