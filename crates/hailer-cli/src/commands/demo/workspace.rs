//! The demo's workspace: a new folder (a temporary one unless the user names it) with the
//! workspace scaffold, the demo's `hailer.toml` and the sample data.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use hailer_config::Runtime;
use hailer_demo::SampleFile;

/// A demo workspace, ready for a session.
#[derive(Debug)]
pub(super) struct DemoWorkspace {
    pub root: PathBuf,
    pub files: Vec<SampleFile>,
}

/// Makes the workspace in `dir` (new or empty), or in a new temporary folder.
pub(super) fn create(
    dir: Option<&Path>,
    runtime: Runtime,
    config_dir: &Path,
) -> anyhow::Result<DemoWorkspace> {
    let root = match dir {
        Some(dir) => {
            let is_empty = match std::fs::read_dir(dir) {
                Ok(mut entries) => entries.next().is_none(),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => true,
                Err(error) => {
                    return Err(error).with_context(|| format!("cannot read {}", dir.display()));
                }
            };
            if !is_empty {
                bail!(
                    "{} is not empty: the demo writes its own workspace and needs a new or empty \
                     folder (or leave out --dir for a temporary one)",
                    dir.display()
                );
            }
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            dir.to_path_buf()
        }
        None => new_temporary_folder()?,
    };
    let root = std::fs::canonicalize(&root)
        .with_context(|| format!("cannot resolve {}", root.display()))?;
    let report = hailer_config::init(&root, false, Some(runtime))?;
    let toml = root.join("hailer.toml");
    std::fs::write(&toml, hailer_demo::hailer_toml(&runtime.to_string()))
        .with_context(|| format!("cannot write {}", toml.display()))?;
    // The runtime the demo chose for this machine is the user's, not a repository's.
    report
        .trust_the_written_config(config_dir)
        .context("cannot record the demo's hailer.toml as trusted")?;
    let files = hailer_demo::write_sample_data(&root.join("data"))?;
    Ok(DemoWorkspace { root, files })
}

/// `hailer-demo-<n>` in the system's temporary folder, created here (never one that exists).
fn new_temporary_folder() -> anyhow::Result<PathBuf> {
    let base = std::env::temp_dir();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.subsec_nanos())
        .unwrap_or_default();
    for attempt in 0..100u32 {
        let name = format!(
            "hailer-demo-{}-{:06x}",
            std::process::id(),
            (seed.wrapping_add(attempt.wrapping_mul(7919))) & 0xff_ffff
        );
        let candidate = base.join(name);
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => {
                return Err(error)
                    .with_context(|| format!("cannot create a folder in {}", base.display()));
            }
        }
    }
    bail!("cannot find a free folder name in {}", base.display())
}
