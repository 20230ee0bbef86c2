//! The kernel image's build context: the Dockerfile, the requirements, our Python package, and
//! the `wheels/` and `pip/` folders the Dockerfile's build stage reads (and the final stage
//! never copies).

use std::path::{Path, PathBuf};

use hailer_kernel_bundle as bundle;

use crate::error::{Error, Result};

/// How to build the kernel image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildOptions {
    /// The image name to build under.
    pub tag: String,
    /// Another base image than the Dockerfile's default.
    pub base_image: Option<String>,
    /// A pip configuration file for installing from an index (becomes `pip/pip.conf`).
    pub pip_config: Option<PathBuf>,
    /// A PEM CA bundle pip should trust (becomes `pip/ca.pem`).
    pub pip_cert: Option<PathBuf>,
    /// A folder of wheels to install from, offline (becomes `wheels/`).
    pub wheelhouse: Option<PathBuf>,
    /// Build every step again instead of reusing cached layers.
    pub no_cache: bool,
}

impl BuildOptions {
    /// Options that build `tag` from the package index with the Dockerfile's defaults.
    pub fn new(tag: impl Into<String>) -> Self {
        Self {
            tag: tag.into(),
            base_image: None,
            pip_config: None,
            pip_cert: None,
            wheelhouse: None,
            no_cache: false,
        }
    }

    /// The build arguments: the kernel contract always, the base image when set.
    pub fn build_args(&self, contract: &str) -> Vec<(String, String)> {
        let mut args = vec![("KERNEL_CONTRACT".to_owned(), contract.to_owned())];
        if let Some(base) = &self.base_image {
            args.push(("BASE_IMAGE".to_owned(), base.clone()));
        }
        args
    }
}

/// One file of the context.
#[derive(Debug, Clone)]
pub struct ContextFile {
    /// Relative, with `/`.
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Every file of the build context, and the folders that must exist even when empty.
#[derive(Debug, Clone)]
pub struct Context {
    pub files: Vec<ContextFile>,
    pub folders: Vec<&'static str>,
}

/// The modification time of every file of the context: fixed, so the engine's layer cache
/// sees the same files as the same, and after 1980, which zip (wheels) cannot go before.
const CONTEXT_MTIME: u64 = 1_577_836_800; // 2020-01-01

/// The two folders the Dockerfile copies into its build stage.
const BUILD_STAGE_FOLDERS: [&str; 2] = ["wheels", "pip"];

/// Gathers the context `options` describes, reading the wheelhouse and pip files from disk.
pub fn gather(options: &BuildOptions) -> Result<Context> {
    let mut files = vec![
        text_file("Dockerfile", bundle::DOCKERFILE),
        text_file("requirements.txt", bundle::REQUIREMENTS),
    ];
    files.extend(
        bundle::PACKAGE_FILES
            .iter()
            .map(|(name, text)| text_file(name, text)),
    );
    if let Some(wheelhouse) = &options.wheelhouse {
        files.extend(wheel_files(wheelhouse)?);
    }
    for (source, name) in [
        (&options.pip_config, "pip/pip.conf"),
        (&options.pip_cert, "pip/ca.pem"),
    ] {
        if let Some(source) = source {
            let bytes = std::fs::read(source).map_err(Error::file(
                format!("cannot read the file for {name} of the build"),
                source,
            ))?;
            files.push(ContextFile {
                path: name.to_owned(),
                bytes,
            });
        }
    }
    Ok(Context {
        files,
        folders: BUILD_STAGE_FOLDERS.to_vec(),
    })
}

fn text_file(path: &str, text: &str) -> ContextFile {
    ContextFile {
        path: path.to_owned(),
        bytes: text.as_bytes().to_vec(),
    }
}

/// Every `*.whl` file directly in `wheelhouse` (links and folders are left out).
fn wheel_files(wheelhouse: &Path) -> Result<Vec<ContextFile>> {
    let entries = std::fs::read_dir(wheelhouse)
        .map_err(Error::file("cannot read the wheelhouse folder", wheelhouse))?;
    let mut wheels = Vec::new();
    for entry in entries {
        let entry = entry.map_err(Error::file("cannot read the wheelhouse folder", wheelhouse))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
        if !is_file || !name.ends_with(".whl") || name.contains('/') {
            continue;
        }
        let bytes = std::fs::read(entry.path())
            .map_err(Error::file("cannot read a wheel", entry.path()))?;
        wheels.push(ContextFile {
            path: format!("wheels/{name}"),
            bytes,
        });
    }
    if wheels.is_empty() {
        return Err(Error::InvalidSetting(format!(
            "the wheelhouse {} holds no .whl files; fill it with `pip download -r \
             requirements.txt -d <folder>` or build without a wheelhouse",
            wheelhouse.display()
        )));
    }
    wheels.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(wheels)
}

impl Context {
    /// The context as an uncompressed tar archive, as the engine's build endpoint takes it.
    pub fn to_tar(&self) -> Result<Vec<u8>> {
        let size: usize = self.files.iter().map(|f| f.bytes.len() + 1024).sum();
        let mut builder = tar::Builder::new(Vec::with_capacity(size + 4096));
        let failed = |e: std::io::Error| Error::File {
            what: "cannot pack the build context".to_owned(),
            path: PathBuf::from("<memory>"),
            source: e,
        };
        for folder in &self.folders {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Directory);
            header.set_mode(0o755);
            header.set_size(0);
            header.set_mtime(CONTEXT_MTIME);
            builder
                .append_data(&mut header, format!("{folder}/"), std::io::empty())
                .map_err(failed)?;
        }
        for file in &self.files {
            let mut header = tar::Header::new_gnu();
            header.set_entry_type(tar::EntryType::Regular);
            header.set_mode(0o644);
            header.set_size(file.bytes.len() as u64);
            header.set_mtime(CONTEXT_MTIME);
            builder
                .append_data(&mut header, &file.path, file.bytes.as_slice())
                .map_err(failed)?;
        }
        builder.into_inner().map_err(failed)
    }

    /// Writes the context into `dir` (created if needed).
    pub fn write_to(&self, dir: &Path) -> Result<()> {
        for folder in &self.folders {
            let path = dir.join(folder);
            std::fs::create_dir_all(&path).map_err(Error::file(
                "cannot create a folder of the build context",
                &path,
            ))?;
        }
        for file in &self.files {
            let path = dir.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(Error::file(
                    "cannot create a folder of the build context",
                    parent,
                ))?;
            }
            std::fs::write(&path, &file.bytes).map_err(Error::file(
                "cannot write a file of the build context",
                &path,
            ))?;
        }
        Ok(())
    }
}

/// Writes the build context to `dir` without the pip files (which hold mirror settings and
/// maybe credentials) and returns the `docker build` command that builds it, which is also
/// written to `dir/build-command.txt`. Teams that adapt the build start from these.
pub fn export_context(dir: &Path, options: &BuildOptions, contract: &str) -> Result<String> {
    let secretless = BuildOptions {
        pip_config: None,
        pip_cert: None,
        ..options.clone()
    };
    let context = gather(&secretless)?;
    context.write_to(dir)?;
    for (source, name) in [
        (&options.pip_config, "pip.conf"),
        (&options.pip_cert, "ca.pem"),
    ] {
        if let Some(source) = source {
            // Only a link to the original, so the secret is never copied by us.
            let target = dir.join("pip").join(name);
            let _ = std::fs::remove_file(&target);
            std::os::unix::fs::symlink(source, &target).map_err(Error::file(
                "cannot link a pip file into the build context",
                &target,
            ))?;
        }
    }
    let command = build_command(dir, options, contract);
    let path = dir.join("build-command.txt");
    std::fs::write(&path, format!("{command}\n"))
        .map_err(Error::file("cannot write the build command", &path))?;
    Ok(command)
}

/// The `docker build` command line equivalent to [`crate::image::build`] for a context in `dir`.
pub fn build_command(dir: &Path, options: &BuildOptions, contract: &str) -> String {
    let mut words = vec![
        "DOCKER_BUILDKIT=0".to_owned(),
        "docker".to_owned(),
        "build".to_owned(),
        "--tag".to_owned(),
        shell_quote(&options.tag),
    ];
    for (name, value) in options.build_args(contract) {
        words.push("--build-arg".to_owned());
        words.push(shell_quote(&format!("{name}={value}")));
    }
    if options.no_cache {
        words.push("--no-cache".to_owned());
    }
    words.push(shell_quote(&dir.to_string_lossy()));
    words.join(" ")
}

/// `text` quoted for a POSIX shell when it needs quoting.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@+%,".contains(c));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::BTreeMap;

    use super::*;

    fn unpack(tar_bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
        let mut archive = tar::Archive::new(tar_bytes);
        let mut out = BTreeMap::new();
        for entry in archive.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
            out.insert(path, bytes);
        }
        out
    }

    #[test]
    fn the_context_has_what_the_dockerfile_copies() {
        let pip = tempfile::tempdir().unwrap();
        let config = pip.path().join("company.ini");
        std::fs::write(&config, "[global]\nindex-url = https://mirror/simple\n").unwrap();
        let mut options = BuildOptions::new("hailer-kernel:test");
        options.pip_config = Some(config);
        let entries = unpack(&gather(&options).unwrap().to_tar().unwrap());
        for name in [
            "Dockerfile",
            "requirements.txt",
            "pyproject.toml",
            "README.md",
            "hailer_kernel/forward.py",
            "wheels/",
            "pip/",
        ] {
            assert!(entries.contains_key(name), "{name} missing: {entries:?}");
        }
        assert_eq!(entries["Dockerfile"], bundle::DOCKERFILE.as_bytes());
        assert!(String::from_utf8_lossy(&entries["pip/pip.conf"]).contains("mirror"));
        assert!(!entries.contains_key("pip/ca.pem"));
    }

    #[test]
    fn an_empty_wheelhouse_is_refused_with_how_to_fill_it() {
        let empty = tempfile::tempdir().unwrap();
        let mut options = BuildOptions::new("t");
        options.wheelhouse = Some(empty.path().to_path_buf());
        let text = gather(&options).unwrap_err().to_string();
        assert!(text.contains("holds no .whl files"), "{text}");
    }

    #[test]
    fn a_missing_pip_file_names_the_file() {
        let mut options = BuildOptions::new("t");
        options.pip_cert = Some(PathBuf::from("/nonexistent/ca.pem"));
        let text = gather(&options).unwrap_err().to_string();
        assert!(text.contains("/nonexistent/ca.pem"), "{text}");
    }

    #[test]
    fn export_writes_the_context_and_a_command_but_never_copies_pip_files() {
        let out = tempfile::tempdir().unwrap();
        let secret = out.path().join("secret.ini");
        std::fs::write(
            &secret,
            "[global]\nindex-url = https://user:pw@mirror/simple\n",
        )
        .unwrap();
        let dir = out.path().join("context");
        let mut options = BuildOptions::new("hailer-kernel:company");
        options.base_image = Some("registry.example/python:3.12 slim".to_owned());
        options.pip_config = Some(secret.clone());
        options.no_cache = true;
        let command = export_context(&dir, &options, "marimo0.24.2-abc").unwrap();
        assert!(dir.join("Dockerfile").is_file());
        assert!(dir.join("wheels").is_dir());
        let link = dir.join("pip/pip.conf");
        assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_link(&link).unwrap(), secret);
        assert_eq!(
            command,
            format!(
                "DOCKER_BUILDKIT=0 docker build --tag hailer-kernel:company --build-arg \
                 KERNEL_CONTRACT=marimo0.24.2-abc --build-arg \
                 'BASE_IMAGE=registry.example/python:3.12 slim' --no-cache {}",
                dir.display()
            )
        );
        let written = std::fs::read_to_string(dir.join("build-command.txt")).unwrap();
        assert_eq!(written.trim_end(), command);
    }
}
