//! Turning a path the model asked for into a file inside one skill's folder.
//!
//! The lexical part ([`normalise`]) accepts only relative paths whose `..` never climb above the
//! folder; [`resolve`] then follows links on disk and refuses a target outside the folder.

use std::path::{Component, Path, PathBuf};

/// Why a requested path cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathRefusal {
    /// No path was given.
    #[error("the path is empty")]
    Empty,
    /// The path starts at a root.
    #[error("'{0}' is an absolute path; skill files are named relative to the skill's folder")]
    Absolute(String),
    /// `..` leads out of the skill's folder.
    #[error("'{0}' climbs out of the skill's folder")]
    Escapes(String),
    /// A link inside the folder points outside it.
    #[error("'{0}' leads outside the skill's folder through a link")]
    LinkEscapes(String),
    /// No such file.
    #[error("there is no file '{0}' in this skill")]
    Missing(String),
}

/// The relative path `requested` names, with `\` read as `/`, `.` dropped and `..` applied.
pub(crate) fn normalise(requested: &str) -> Result<PathBuf, PathRefusal> {
    let text = requested.trim().replace('\\', "/");
    if text.is_empty() {
        return Err(PathRefusal::Empty);
    }
    let bytes = text.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if text.starts_with('/') || drive {
        return Err(PathRefusal::Absolute(text));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(PathRefusal::Escapes(text));
                }
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return Err(PathRefusal::Empty);
    }
    Ok(parts.iter().collect())
}

/// The file `requested` names inside `folder`, after following links; it must exist, be a file
/// and stay inside the folder.
pub(crate) fn resolve(folder: &Path, requested: &str) -> Result<PathBuf, PathRefusal> {
    let relative = normalise(requested)?;
    let shown = relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/");
    let root = folder
        .canonicalize()
        .map_err(|_| PathRefusal::Missing(shown.clone()))?;
    let target = root
        .join(&relative)
        .canonicalize()
        .map_err(|_| PathRefusal::Missing(shown.clone()))?;
    if !target.starts_with(&root) {
        return Err(PathRefusal::LinkEscapes(shown));
    }
    if !target.is_file() {
        return Err(PathRefusal::Missing(shown));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn relative_paths_are_normalised() {
        assert_eq!(
            normalise("reference/checks.md").unwrap(),
            Path::new("reference/checks.md")
        );
        assert_eq!(
            normalise(".\\reference\\x.md").unwrap(),
            Path::new("reference/x.md")
        );
        assert_eq!(normalise("a/../b.md").unwrap(), Path::new("b.md"));
        assert_eq!(normalise("a//./b.md").unwrap(), Path::new("a/b.md"));
    }

    #[test]
    fn escapes_and_absolute_paths_are_refused() {
        assert!(matches!(
            normalise("../secret"),
            Err(PathRefusal::Escapes(_))
        ));
        assert!(matches!(
            normalise("a/../../b"),
            Err(PathRefusal::Escapes(_))
        ));
        assert!(matches!(
            normalise("..\\..\\b"),
            Err(PathRefusal::Escapes(_))
        ));
        assert!(matches!(
            normalise("/etc/passwd"),
            Err(PathRefusal::Absolute(_))
        ));
        assert!(matches!(normalise("C:\\x"), Err(PathRefusal::Absolute(_))));
        assert!(matches!(
            normalise("\\\\server\\share"),
            Err(PathRefusal::Absolute(_))
        ));
        assert_eq!(normalise(" "), Err(PathRefusal::Empty));
        assert_eq!(normalise("a/.."), Err(PathRefusal::Empty));
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("skill");
        std::fs::create_dir_all(skill.join("docs")).unwrap();
        std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
        std::fs::write(skill.join("docs/in.md"), "in").unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.txt"), skill.join("out.md")).unwrap();
        std::os::unix::fs::symlink(skill.join("docs/in.md"), skill.join("alias.md")).unwrap();
        assert_eq!(
            resolve(&skill, "out.md"),
            Err(PathRefusal::LinkEscapes("out.md".to_owned()))
        );
        assert!(resolve(&skill, "alias.md").unwrap().ends_with("docs/in.md"));
        assert_eq!(
            resolve(&skill, "docs"),
            Err(PathRefusal::Missing("docs".to_owned()))
        );
        assert_eq!(
            resolve(&skill, "nope.md"),
            Err(PathRefusal::Missing("nope.md".to_owned()))
        );
    }

    proptest! {
        #[test]
        fn a_normalised_path_stays_below_the_folder(requested in "([a-z.]{0,3}|\\.\\.|/|\\\\){0,12}") {
            if let Ok(path) = normalise(&requested) {
                prop_assert!(path.is_relative());
                prop_assert!(path.components().all(|c| matches!(c, Component::Normal(_))));
                let joined = Path::new("/base/skill").join(&path);
                prop_assert!(joined.starts_with("/base/skill"));
            }
        }
    }
}
