//! Skills: instructions the agent loads when it needs them. Each skill is a folder under the
//! skills folder holding a `SKILL.md` (front matter with `name` and `description`, then the
//! instructions) and any files it refers to.

mod path;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub(crate) use path::{PathRefusal, resolve};

use crate::Failure;
use crate::front_matter;

/// The file that makes a folder a skill.
pub(crate) const SKILL_FILE: &str = "SKILL.md";
/// The most bytes of one skill file handed to the model (results are cut further by the tool cap).
pub(crate) const MAX_SKILL_FILE_BYTES: u64 = 1024 * 1024;
/// Files deeper than this below a skill's folder are not listed.
const MAX_LIST_DEPTH: usize = 6;
/// At most this many files of one skill are listed.
const MAX_LISTED_FILES: usize = 200;

/// One skill as found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// From the front matter, else the folder's name.
    pub name: String,
    /// The skill's folder name under the skills folder.
    pub folder: String,
    /// From the front matter; empty when there is none.
    pub description: String,
    /// The skill's folder.
    pub dir: PathBuf,
}

/// Every skill in `skills_dir`, sorted by name. A missing folder has none.
pub fn discover(skills_dir: &Path) -> Vec<Skill> {
    let Ok(entries) = std::fs::read_dir(skills_dir) else {
        return Vec::new();
    };
    let mut skills: Vec<Skill> = entries
        .flatten()
        .filter_map(|entry| {
            let dir = entry.path();
            let folder = entry.file_name().to_str()?.to_owned();
            if folder.starts_with('.') {
                return None;
            }
            let text = read_text(&dir.join(SKILL_FILE)).ok()?;
            let (matter, _) = front_matter::parse(&text);
            Some(Skill {
                name: matter.name.unwrap_or_else(|| folder.clone()),
                folder,
                description: matter.description.unwrap_or_default(),
                dir,
            })
        })
        .collect();
    skills.sort_by_key(|skill| skill.name.to_lowercase());
    skills
}

/// The skill called `name` (or kept in a folder called `name`), in any case.
pub(crate) fn find(skills_dir: &Path, name: &str) -> Result<Skill, Failure> {
    let skills = discover(skills_dir);
    let wanted = name.trim().to_lowercase();
    skills
        .iter()
        .find(|skill| skill.name.to_lowercase() == wanted)
        .or_else(|| {
            skills
                .iter()
                .find(|skill| skill.folder.to_lowercase() == wanted)
        })
        .cloned()
        .ok_or_else(|| unknown_skill(name, &skills))
}

fn unknown_skill(name: &str, skills: &[Skill]) -> Failure {
    let hint = if skills.is_empty() {
        "There are no skills in this workspace.".to_owned()
    } else {
        let names: Vec<&str> = skills.iter().map(|skill| skill.name.as_str()).collect();
        format!("Available skills: {}.", names.join(", "))
    };
    Failure::new(format!("there is no skill named '{}'", name.trim()), hint)
}

/// The text of `SKILL.md` of `skill`.
pub(crate) fn instructions(skill: &Skill) -> Result<String, Failure> {
    read_text(&skill.dir.join(SKILL_FILE)).map_err(|why| {
        Failure::new(
            format!("cannot read the skill '{}': {why}", skill.name),
            "Tell the user; the skill's SKILL.md must be a UTF-8 text file.",
        )
    })
}

/// `load_skill`: the whole `SKILL.md` and the list of the skill's other files.
pub fn load_skill(skills_dir: &Path, name: &str) -> Result<String, Failure> {
    let skill = find(skills_dir, name)?;
    let text = instructions(&skill)?;
    let mut reply = format!(
        "Skill '{}' (folder {}/)\n\n{}",
        skill.name,
        skill.folder,
        text.trim_end()
    );
    let files: Vec<String> = list_files(&skill.dir)
        .into_iter()
        .filter(|file| file != SKILL_FILE)
        .collect();
    if files.is_empty() {
        reply.push_str("\n\nThis skill has no other files.");
    } else {
        let _ = write!(
            reply,
            "\n\nFiles of this skill (read one with read_skill_file(\"{}\", \"<path>\")):",
            skill.name
        );
        for file in &files {
            let _ = write!(reply, "\n- {file}");
        }
    }
    Ok(reply)
}

/// `read_skill_file`: one file of a skill, by its path relative to the skill's folder.
pub fn read_skill_file(skills_dir: &Path, name: &str, requested: &str) -> Result<String, Failure> {
    let skill = find(skills_dir, name)?;
    let target = resolve(&skill.dir, requested).map_err(|refusal| {
        let files = list_files(&skill.dir);
        let hint = match refusal {
            PathRefusal::Absolute(_) | PathRefusal::Escapes(_) | PathRefusal::LinkEscapes(_) => {
                "Only files inside the skill's folder can be read, named relative to it".to_owned()
            }
            PathRefusal::Empty | PathRefusal::Missing(_) => {
                "Name one of the skill's files".to_owned()
            }
        };
        Failure::new(
            refusal.to_string(),
            format!("{hint}: {}.", files.join(", ")),
        )
    })?;
    read_text(&target).map_err(|why| {
        Failure::new(
            format!("cannot read '{}': {why}", requested.trim()),
            "Only text files of a skill can be read.",
        )
    })
}

/// The text of a file, refusing big and non-UTF-8 files.
fn read_text(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err("not a file".to_owned());
    }
    if metadata.len() > MAX_SKILL_FILE_BYTES {
        return Err(format!(
            "it is {} bytes, more than the {MAX_SKILL_FILE_BYTES} a skill file may have",
            metadata.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|error| error.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

/// The files below `dir`, as `/`-separated relative paths, sorted; links are listed only when
/// they point at a file inside `dir`.
pub(crate) fn list_files(dir: &Path) -> Vec<String> {
    let Ok(root) = dir.canonicalize() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    walk(&root, &root, 0, &mut found);
    found.sort();
    found.truncate(MAX_LISTED_FILES);
    found
}

fn walk(root: &Path, dir: &Path, depth: usize, found: &mut Vec<String>) {
    if depth > MAX_LIST_DEPTH || found.len() >= MAX_LISTED_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(root, &path, depth + 1, found);
        } else if (kind.is_file()
            || (kind.is_symlink()
                && path
                    .canonicalize()
                    .is_ok_and(|target| target.starts_with(root) && target.is_file())))
            && let Ok(relative) = path.strip_prefix(root)
        {
            let parts: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            found.push(parts.join("/"));
        }
    }
}

/// The user message of a turn with a skill attached: a notice, the skill, then the message.
pub fn attach_to_message(skills_dir: &Path, name: &str, message: &str) -> Result<String, Failure> {
    let skill = find(skills_dir, name)?;
    let text = instructions(&skill)?;
    let message = message.trim();
    let message = if message.is_empty() {
        "Say briefly what this skill is for and what you need from me to use it."
    } else {
        message
    };
    Ok(format!(
        "[Hailer] The user attached the skill '{}' to this message. Follow its instructions below.\n\n<skill name=\"{}\">\n{}\n</skill>\n\n{message}",
        skill.name,
        skill.name,
        text.trim_end()
    ))
}

#[cfg(test)]
mod tests;
