//! `hailer init`: the workspace scaffold.
//!
//! Creates what is missing and keeps what exists: a second run changes nothing, and `force`
//! rewrites only the configuration file. The user's own `.gitignore` is never touched; Hailer's
//! `.hailer/` folder ignores itself.

mod template;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::discovery::{CONFIG_FILE, NESTED_CONFIG_FILE};
use crate::error::{Error, Result};
use crate::mount_rules::STATE_DIR;
use crate::schema::{Choice, Runtime, defaults};

pub use template::hailer_toml;

/// The starter notebook every new workspace gets.
pub const STARTER_NOTEBOOK: &str = include_str!("../../../../kernel-image/templates/starter.py");

/// What `init` did to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InitAction {
    /// It did not exist and `init` created it.
    Created,
    /// It existed and was left as it was.
    Kept,
    /// The configuration file, rewritten because of `force`.
    Rewritten,
}

/// One file or folder `init` looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitEntry {
    /// Relative to the workspace.
    pub path: PathBuf,
    /// Whether the path is a folder rather than a file.
    pub is_folder: bool,
    /// Whether `init` created, kept or rewrote it.
    pub action: InitAction,
}

/// A kept configuration file that asks for another runtime than `--kernel` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeMismatch {
    /// The runtime `--kernel` asked for, which the kept file does not set.
    pub requested: Runtime,
    /// The runtime the kept file sets, as written (`docker` when it sets none); `None` when the
    /// file could not be read as TOML.
    pub kept: Option<String>,
    /// The kept file, relative to the workspace.
    pub config_file: PathBuf,
}

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitReport {
    /// The workspace folder, as the caller passed it to [`init()`].
    pub workspace: PathBuf,
    /// Every file and folder `init` looked at, in the order it handled them.
    pub entries: Vec<InitEntry>,
    /// Set when `--kernel` asked for a runtime and a kept configuration file asks for another;
    /// `None` when no runtime was asked for, the file was written now, or the two agree.
    pub runtime_mismatch: Option<RuntimeMismatch>,
}

impl InitReport {
    /// Paths created or rewritten.
    pub fn written(&self) -> impl Iterator<Item = &Path> {
        self.entries
            .iter()
            .filter(|entry| entry.action != InitAction::Kept)
            .map(|entry| entry.path.as_path())
    }

    /// Agrees to the settings that need trust in the configuration file this init wrote
    /// (`--kernel unsafe-local`): the user asked for them by running `init`, no repository
    /// brought them. A kept file is left to `hailer trust`. `None` when nothing was recorded.
    pub fn trust_the_written_config(
        &self,
        config_dir: &Path,
    ) -> std::result::Result<Option<crate::trust::TrustDecision>, crate::trust::TrustError> {
        let file = Path::new(CONFIG_FILE);
        if !self
            .written()
            .any(|path| path == file || path == self.workspace.join(file))
        {
            return Ok(None);
        }
        let mut inputs = crate::LoadInputs::new(&self.workspace);
        inputs.config_dir = Some(config_dir.to_path_buf());
        let Ok(loaded) = crate::load(&inputs) else {
            return Ok(None);
        };
        if !loaded.trust.state.refuses() {
            return Ok(None);
        }
        crate::trust::grant(
            &loaded.trust,
            &crate::trust::TrustStore::in_config_dir(config_dir),
        )
    }

    /// Paths that existed and were kept.
    pub fn kept(&self) -> impl Iterator<Item = &Path> {
        self.entries
            .iter()
            .filter(|entry| entry.action == InitAction::Kept)
            .map(|entry| entry.path.as_path())
    }
}

/// Sets up `workspace` (created if missing). `force` rewrites the configuration file;
/// `kernel` chooses the runtime written into a new (or rewritten) one.
pub fn init(workspace: &Path, force: bool, kernel: Option<Runtime>) -> Result<InitReport> {
    fs::create_dir_all(workspace).map_err(Error::io("create the workspace folder", workspace))?;
    if !workspace.is_dir() {
        return Err(Error::NoWorkspace {
            path: workspace.to_path_buf(),
        });
    }
    let mut scaffold = Scaffold {
        root: workspace.to_path_buf(),
        entries: Vec::new(),
    };

    let runtime_mismatch = scaffold.config_file(force, kernel)?;
    // Examples go only into folders created now, so a deleted example stays deleted.
    let context = Path::new(defaults::CONTEXT_DIR);
    if scaffold.folder(context)? {
        let (name, text) = template::CONTEXT_EXAMPLE;
        scaffold.file(&context.join(name), text)?;
    }
    let skills = Path::new(defaults::SKILLS_DIR);
    if scaffold.folder(skills)? {
        let (name, text) = template::SKILL_EXAMPLE;
        scaffold.folder(skills.join(name))?;
        scaffold.file(&skills.join(name).join("SKILL.md"), text)?;
    }
    let prompts = Path::new(defaults::PROMPTS_DIR);
    if scaffold.folder(prompts)? {
        let (name, text) = template::PROMPT_EXAMPLE;
        scaffold.file(&prompts.join(name), text)?;
    }
    let notebooks = Path::new(defaults::NOTEBOOK)
        .parent()
        .unwrap_or_else(|| Path::new("notebooks"));
    scaffold.folder(notebooks)?;
    scaffold.file(Path::new(defaults::NOTEBOOK), STARTER_NOTEBOOK)?;
    scaffold.folder(Path::new(defaults::DATA_DIR))?;
    scaffold.private_folder(Path::new(STATE_DIR))?;
    scaffold.file(
        &Path::new(STATE_DIR).join(hailer_platform::STATE_IGNORE_FILE),
        hailer_platform::STATE_IGNORE_TEXT,
    )?;

    Ok(InitReport {
        workspace: scaffold.root,
        entries: scaffold.entries,
        runtime_mismatch,
    })
}

struct Scaffold {
    root: PathBuf,
    entries: Vec<InitEntry>,
}

impl Scaffold {
    fn record(&mut self, path: &Path, is_folder: bool, action: InitAction) {
        self.entries.push(InitEntry {
            path: path.to_path_buf(),
            is_folder,
            action,
        });
    }

    /// Writes or keeps the configuration file; reports a kept file's other runtime.
    fn config_file(
        &mut self,
        force: bool,
        kernel: Option<Runtime>,
    ) -> Result<Option<RuntimeMismatch>> {
        let existing = [CONFIG_FILE, NESTED_CONFIG_FILE]
            .into_iter()
            .map(Path::new)
            .find(|relative| self.root.join(relative).exists());
        let text = hailer_toml(kernel.unwrap_or(Runtime::Docker));
        match existing {
            None => {
                self.file(Path::new(CONFIG_FILE), &text)?;
                Ok(None)
            }
            Some(relative) if force => {
                let path = self.root.join(relative);
                if !path.is_file() {
                    return Err(Error::NotAFile { path });
                }
                replace_file(&path, &text)?;
                self.record(relative, false, InitAction::Rewritten);
                Ok(None)
            }
            Some(relative) => {
                self.record(relative, false, InitAction::Kept);
                let Some(requested) = kernel else {
                    return Ok(None);
                };
                let kept = kept_runtime(&self.root.join(relative));
                if kept.as_deref().and_then(Runtime::parse) == Some(requested) {
                    return Ok(None);
                }
                Ok(Some(RuntimeMismatch {
                    requested,
                    kept,
                    config_file: relative.to_path_buf(),
                }))
            }
        }
    }

    /// Creates a folder (and its parents); `Ok(true)` when it was created now.
    fn folder(&mut self, relative: impl AsRef<Path>) -> Result<bool> {
        let relative = relative.as_ref();
        let path = self.root.join(relative);
        if path.is_dir() {
            self.record(relative, true, InitAction::Kept);
            return Ok(false);
        }
        if path.symlink_metadata().is_ok() {
            return Err(Error::NotAFolder { path });
        }
        fs::create_dir_all(&path).map_err(Error::io("create the folder", &path))?;
        self.record(relative, true, InitAction::Created);
        Ok(true)
    }

    /// A folder only the user may open (on Unix); an existing one is tightened if needed.
    fn private_folder(&mut self, relative: &Path) -> Result<()> {
        let path = self.root.join(relative);
        let is_real_folder = path.symlink_metadata().is_ok_and(|meta| meta.is_dir());
        if is_real_folder {
            self.record(relative, true, InitAction::Kept);
        } else if path.symlink_metadata().is_ok() {
            return Err(Error::NotAFolder { path });
        } else {
            hailer_platform::create_dir_all_private(&path)
                .map_err(Error::io("create the folder", &path))?;
            self.record(relative, true, InitAction::Created);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let meta = fs::metadata(&path).map_err(Error::io("inspect the folder", &path))?;
            if meta.permissions().mode() & 0o777 != 0o700 {
                fs::set_permissions(&path, fs::Permissions::from_mode(0o700))
                    .map_err(Error::io("make the folder private", &path))?;
            }
        }
        Ok(())
    }

    /// Creates a file that does not exist yet; never follows or replaces what is there.
    fn file(&mut self, relative: &Path, text: &str) -> Result<()> {
        let path = self.root.join(relative);
        if path.symlink_metadata().is_ok() {
            self.record(relative, false, InitAction::Kept);
            return Ok(());
        }
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(Error::io("create the file", &path))?;
        file.write_all(text.as_bytes())
            .map_err(Error::io("write the file", &path))?;
        self.record(relative, false, InitAction::Created);
        Ok(())
    }
}

/// Replaces a file atomically (a temporary file in the same folder, then a rename).
fn replace_file(path: &Path, text: &str) -> Result<()> {
    let folder = path.parent().unwrap_or_else(|| Path::new("."));
    let mut temp =
        tempfile::NamedTempFile::new_in(folder).map_err(Error::io("write a file in", folder))?;
    temp.write_all(text.as_bytes())
        .map_err(Error::io("write the file", temp.path().to_path_buf()))?;
    temp.persist(path)
        .map_err(|error| Error::io("replace the file", path)(error.error))?;
    Ok(())
}

/// The runtime a configuration file sets, as written; `docker` when it sets none.
fn kept_runtime(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    let runtime = table
        .get("kernel")
        .and_then(|kernel| kernel.get("runtime"))
        .and_then(|runtime| runtime.as_str())
        .map_or_else(
            || Runtime::Docker.word().to_owned(),
            |word| word.trim().to_owned(),
        );
    Some(runtime)
}
