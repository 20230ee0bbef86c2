//! Notebook names: slugs for new notebooks, and resolving what a user or the model typed.

use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

/// How deep below the notebooks folder notebooks are looked for.
const MAX_DEPTH: usize = 4;
/// A file larger than this is not treated as a notebook.
const MAX_NOTEBOOK_BYTES: u64 = 5 * 1024 * 1024;
/// How many candidates an error lists.
const MAX_LISTED: usize = 12;

/// Why a notebook reference could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotebookError {
    #[error(
        "no notebook matches \"{reference}\"; the notebooks are: {}",
        listed(candidates)
    )]
    /// No notebook matches the reference.
    NotFound {
        /// What the user named.
        reference: String,
        /// The notebooks there are.
        candidates: Vec<String>,
    },
    #[error(
        "\"{reference}\" matches several notebooks: {}; name one by its path",
        listed(candidates)
    )]
    /// Several notebooks match the reference.
    Ambiguous {
        /// What the user named.
        reference: String,
        /// The notebooks it matches.
        candidates: Vec<String>,
    },
    #[error("\"{0}\" points outside the notebooks folder; use a name inside it")]
    /// The name points outside the notebooks folder.
    Escapes(String),
    #[error("\"{0}\" is not a marimo notebook (it needs `import marimo` and `marimo.App(`)")]
    /// The file is not a marimo notebook.
    NotANotebook(String),
    #[error(
        "\"{0}\" cannot be a notebook name: use at most 200 characters, with a letter or digit, and no /, \\ or .."
    )]
    /// The name breaks the notebook name rule.
    BadName(String),
    #[error("a notebook named \"{0}\" exists already; open it, or pick another name")]
    /// A notebook of that name exists.
    Exists(String),
}

fn listed(candidates: &[String]) -> String {
    if candidates.is_empty() {
        return "(none yet)".to_owned();
    }
    let mut text = candidates
        .iter()
        .take(MAX_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if candidates.len() > MAX_LISTED {
        text.push_str(&format!(" and {} more", candidates.len() - MAX_LISTED));
    }
    text
}

/// A notebook file found in the notebooks folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotebookFile {
    /// Relative to the notebooks folder, `/`-separated.
    pub name: String,
    pub path: PathBuf,
    pub modified_at: i64,
    pub size: u64,
}

/// The most characters a new notebook's name may have.
pub(crate) const MAX_NAME_CHARS: usize = 200;
/// The most characters of a new notebook's file name before `.py`; a longer name is cut.
const MAX_STEM_CHARS: usize = 80;

/// `Sales report (Q3)` becomes `sales_report_q3.py`.
///
/// A name is refused when it has more than [`MAX_NAME_CHARS`] characters, holds `/`, `\` or
/// `..`, or has no letter or digit of `A`–`Z`, `a`–`z`, `0`–`9`; the OpenAPI document states the
/// same rule as a pattern. Its letters and digits, lowercased and joined by `_` where anything
/// else stood, make the file name, cut at 80 characters. A final `.py` is left out unless
/// nothing else would be left.
pub(crate) fn slug_file_name(name: &str) -> Result<String, NotebookError> {
    let bad = || NotebookError::BadName(name.to_owned());
    if name.chars().count() > MAX_NAME_CHARS || name.contains(['/', '\\']) || name.contains("..") {
        return Err(bad());
    }
    let trimmed = name.trim();
    let stem = trimmed
        .strip_suffix(".py")
        .or_else(|| trimmed.strip_suffix(".PY"))
        .filter(|stem| stem.contains(|ch: char| ch.is_ascii_alphanumeric()))
        .unwrap_or(trimmed);
    let mut slug = String::new();
    for ch in stem.chars() {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch.to_ascii_lowercase());
        } else if !slug.ends_with('_') && !slug.is_empty() {
            slug.push('_');
        }
    }
    slug.truncate(MAX_STEM_CHARS);
    let slug = slug.trim_end_matches('_');
    if slug.is_empty() {
        return Err(bad());
    }
    Ok(if slug.starts_with(|ch: char| ch.is_ascii_digit()) {
        format!("nb_{slug}.py")
    } else {
        format!("{slug}.py")
    })
}

/// Whether the file at `path` is a marimo notebook (a `.py` of at most 5 MB that imports marimo
/// and makes an App).
pub(super) fn is_notebook(path: &Path) -> bool {
    let Ok(metadata) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !metadata.is_file() || metadata.len() > MAX_NOTEBOOK_BYTES {
        return false;
    }
    if path.extension().and_then(|ext| ext.to_str()) != Some("py") {
        return false;
    }
    std::fs::read_to_string(path)
        .is_ok_and(|text| text.contains("import marimo") && text.contains("marimo.App("))
}

/// Every notebook under `dir`, sorted by name.
pub(crate) fn list(dir: &Path) -> Vec<NotebookFile> {
    let mut found = Vec::new();
    walk(dir, dir, 0, &mut found);
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

fn walk(root: &Path, dir: &Path, depth: usize, found: &mut Vec<NotebookFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name.starts_with("__") {
            continue;
        }
        let path = entry.path();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            if depth < MAX_DEPTH {
                walk(root, &path, depth + 1, found);
            }
        } else if file_type.is_file() && is_notebook(&path) {
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            let modified_at = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |elapsed| {
                    i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
                });
            found.push(NotebookFile {
                name: relative_name(root, &path),
                path,
                modified_at,
                size: metadata.len(),
            });
        }
    }
}

fn relative_name(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Finds the notebook `reference` names: a path inside the notebooks folder (relative, or
/// absolute under it), or a file name with or without `.py`, case-insensitively.
pub(crate) fn resolve(dir: &Path, reference: &str) -> Result<NotebookFile, NotebookError> {
    let reference = reference.trim();
    let as_path = Path::new(reference);
    if as_path
        .components()
        .any(|component| matches!(component, Component::ParentDir))
    {
        return Err(NotebookError::Escapes(reference.to_owned()));
    }
    let notebooks = list(dir);
    let names = || {
        notebooks
            .iter()
            .map(|nb| nb.name.clone())
            .collect::<Vec<_>>()
    };
    let relative = if as_path.is_absolute() {
        match as_path.strip_prefix(dir) {
            Ok(inside) => inside.to_path_buf(),
            Err(_) => return Err(NotebookError::Escapes(reference.to_owned())),
        }
    } else {
        as_path.to_path_buf()
    };
    let wanted = relative.to_string_lossy().replace('\\', "/");
    let wanted_with_py = if wanted.to_ascii_lowercase().ends_with(".py") {
        wanted.clone()
    } else {
        format!("{wanted}.py")
    };
    if let Some(exact) = notebooks
        .iter()
        .find(|nb| nb.name == wanted || nb.name == wanted_with_py)
    {
        return Ok(exact.clone());
    }
    let candidate = dir.join(&relative);
    if candidate.is_file() && !is_notebook(&candidate) {
        return Err(NotebookError::NotANotebook(reference.to_owned()));
    }
    let lower = wanted_with_py.to_lowercase();
    let matches: Vec<&NotebookFile> = notebooks
        .iter()
        .filter(|nb| {
            let name = nb.name.to_lowercase();
            name == lower || name.rsplit('/').next() == Some(lower.as_str())
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(NotebookError::NotFound {
            reference: reference.to_owned(),
            candidates: names(),
        }),
        many => Err(NotebookError::Ambiguous {
            reference: reference.to_owned(),
            candidates: many.iter().map(|nb| nb.name.clone()).collect(),
        }),
    }
}

#[cfg(test)]
#[path = "names_tests.rs"]
mod tests;
