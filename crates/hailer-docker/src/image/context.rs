//! The kernel image's build context (the Dockerfile, the requirements, our Python package and the
//! `wheels/` folder the build stage reads and the final stage never copies), and the package index
//! settings that go to the build as BuildKit secrets, never in the context.

use std::path::{Path, PathBuf};

use hailer_kernel_bundle as bundle;
use secrecy::{ExposeSecret as _, SecretSlice, SecretString};

use crate::error::{Error, Result};

/// How to build the kernel image.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The image name to build under.
    pub tag: String,
    /// Another base image than the default ([`bundle::DEFAULT_BASE_IMAGE`]).
    pub base_image: Option<String>,
    /// The base image's digest, recorded as a label; known once the base is on this machine.
    pub base_digest: Option<String>,
    /// A pip configuration file for installing from an index (the `pip.conf` build secret).
    pub pip_config: Option<PathBuf>,
    /// The host's package index settings merged into one pip configuration
    /// ([`crate::discover_host_settings`]); the `pip.conf` build secret when `pip_config` is not
    /// set.
    pub host_pip_config: Option<SecretString>,
    /// A PEM CA bundle pip should trust (the `ca.pem` build secret).
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
            base_digest: None,
            pip_config: None,
            host_pip_config: None,
            pip_cert: None,
            wheelhouse: None,
            no_cache: false,
        }
    }

    /// The base image the build starts from: the one named, else the default.
    pub fn base(&self) -> &str {
        self.base_image
            .as_deref()
            .map(str::trim)
            .filter(|base| !base.is_empty())
            .unwrap_or(bundle::DEFAULT_BASE_IMAGE)
    }

    /// The build arguments: the kernel contract and the base image always, the base image's
    /// digest when it is known.
    pub fn build_args(&self, contract: &str) -> Vec<(String, String)> {
        let mut args = vec![
            ("KERNEL_CONTRACT".to_owned(), contract.to_owned()),
            ("BASE_IMAGE".to_owned(), self.base().to_owned()),
        ];
        if let Some(digest) = &self.base_digest {
            args.push(("BASE_IMAGE_DIGEST".to_owned(), digest.clone()));
        }
        args
    }
}

/// One file of the context.
#[derive(Debug, Clone)]
pub struct ContextFile {
    /// Relative, with `/`.
    pub path: String,
    /// The file's whole contents.
    pub bytes: Vec<u8>,
}

/// Every file of the build context, and the folders that must exist even when empty.
#[derive(Debug, Clone)]
pub struct Context {
    /// The files: `Dockerfile`, `requirements.txt`, the kernel's Python package, then any
    /// wheels (`wheels/*.whl`, sorted by path). Never a package index setting.
    pub files: Vec<ContextFile>,
    /// Folders written even when no file is in them: `wheels`, which the Dockerfile's build
    /// stage always copies.
    pub folders: Vec<&'static str>,
}

/// The id of the build secret holding pip's configuration: the Dockerfile mounts it at
/// `/run/secrets/pip.conf` for the step that installs from the index.
pub const PIP_CONF_SECRET: &str = "pip.conf";
/// The id of the build secret holding the CA bundle pip trusts (`/run/secrets/ca.pem`).
pub const CA_SECRET: &str = "ca.pem";

/// A package index setting handed to the build as a BuildKit secret.
pub(crate) struct BuildSecret {
    /// The secret's id, which names its file under `/run/secrets/` in the build step.
    pub id: &'static str,
    /// Its contents: index addresses may carry credentials, so they are never logged.
    pub bytes: SecretSlice<u8>,
}

impl std::fmt::Debug for BuildSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildSecret")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The modification time of every file of the context: fixed, so the engine's layer cache
/// sees the same files as the same, and after 1980, which zip (wheels) cannot go before.
const CONTEXT_MTIME: u64 = 1_577_836_800; // 2020-01-01

/// The folder the Dockerfile copies into its build stage.
const BUILD_STAGE_FOLDERS: [&str; 1] = ["wheels"];

/// Gathers the context `options` describes, reading the wheelhouse from disk. The package index
/// settings are left out: they are `secrets`.
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
    Ok(Context {
        files,
        folders: BUILD_STAGE_FOLDERS.to_vec(),
    })
}

/// The package index settings `options` names, read from disk, as build secrets: `pip.conf`
/// (the named file, else the host's settings) and `ca.pem`.
pub(crate) fn secrets(options: &BuildOptions) -> Result<Vec<BuildSecret>> {
    let read = |source: &Path, id: &str| {
        std::fs::read(source)
            .map(SecretSlice::from)
            .map_err(Error::file(
                format!("cannot read the file for the build's {id}"),
                source,
            ))
    };
    let mut secrets = Vec::new();
    let pip_conf = match (&options.pip_config, &options.host_pip_config) {
        (Some(source), _) => Some(read(source, PIP_CONF_SECRET)?),
        (None, Some(text)) => Some(SecretSlice::from(text.expose_secret().as_bytes().to_vec())),
        (None, None) => None,
    };
    if let Some(bytes) = pip_conf {
        secrets.push(BuildSecret {
            id: PIP_CONF_SECRET,
            bytes,
        });
    }
    if let Some(source) = &options.pip_cert {
        secrets.push(BuildSecret {
            id: CA_SECRET,
            bytes: read(source, CA_SECRET)?,
        });
    }
    Ok(secrets)
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

/// The folder of an exported context that holds the host's package index settings; the
/// context's `.dockerignore` keeps it out of what `docker build` sends.
pub const EXPORTED_SECRETS_FOLDER: &str = "secrets";

/// Writes the build context to `dir` (new or empty) and returns the `docker build` command
/// that builds it, which is also written to `dir/build-command.txt`. Teams that adapt the build
/// start from these.
///
/// The package index settings are never part of the context: the command hands them to
/// BuildKit with `--secret`. The pip files named by the user are never copied, the command names
/// them where they are. The host's discovered settings have no file of their own: they are
/// written to `secrets/pip.conf`, readable by the user only, which `.dockerignore` keeps out of
/// the context.
pub fn export_context(dir: &Path, options: &BuildOptions, contract: &str) -> Result<String> {
    let not_empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if not_empty {
        return Err(Error::InvalidSetting(format!(
            "the folder {} is not empty; export the build context to a new or empty folder",
            dir.display()
        )));
    }
    let mut sources = Vec::new();
    // A named file that is not there would build without the settings: it must be readable.
    for (source, id) in [
        (&options.pip_config, PIP_CONF_SECRET),
        (&options.pip_cert, CA_SECRET),
    ] {
        if let Some(source) = source {
            std::fs::File::open(source).map_err(Error::file(
                format!("cannot read the file for the build's {id}"),
                source,
            ))?;
            let source = std::path::absolute(source)
                .map_err(Error::file("cannot resolve a pip file", source))?;
            sources.push((id, source));
        }
    }
    gather(options)?.write_to(dir)?;
    if options.pip_config.is_none()
        && let Some(text) = &options.host_pip_config
    {
        let folder = dir.join(EXPORTED_SECRETS_FOLDER);
        hailer_platform::create_dir_all_private(&folder).map_err(Error::file(
            "cannot create the folder for the pip settings of the build",
            &folder,
        ))?;
        let file = folder.join(PIP_CONF_SECRET);
        write_private(&file, text.expose_secret())?;
        let ignore = dir.join(".dockerignore");
        std::fs::write(&ignore, format!("{EXPORTED_SECRETS_FOLDER}\n"))
            .map_err(Error::file("cannot write the .dockerignore file", &ignore))?;
        sources.insert(0, (PIP_CONF_SECRET, file));
    }
    let command = build_command(dir, options, contract, &sources);
    let path = dir.join("build-command.txt");
    std::fs::write(&path, format!("{command}\n"))
        .map_err(Error::file("cannot write the build command", &path))?;
    Ok(command)
}

/// Writes `text` to a new file only its owner can read.
fn write_private(path: &Path, text: &str) -> Result<()> {
    use std::io::Write as _;
    let mut file = hailer_platform::private_open_options()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(Error::file(
            "cannot write the pip settings of the build",
            path,
        ))?;
    file.write_all(text.as_bytes()).map_err(Error::file(
        "cannot write the pip settings of the build",
        path,
    ))
}

/// The `docker build` command line equivalent to [`crate::image::build`] for a context in `dir`,
/// handing BuildKit each `(id, file)` of `secrets` as a build secret.
pub(crate) fn build_command(
    dir: &Path,
    options: &BuildOptions,
    contract: &str,
    secrets: &[(&str, PathBuf)],
) -> String {
    let mut words = vec!["docker".to_owned(), "build".to_owned()];
    for (id, source) in secrets {
        words.push("--secret".to_owned());
        words.push(shell_quote(&format!(
            "id={id},src={}",
            source.to_string_lossy()
        )));
    }
    words.extend(["--tag".to_owned(), shell_quote(&options.tag)]);
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
        ] {
            assert!(entries.contains_key(name), "{name} missing: {entries:?}");
        }
        assert_eq!(entries["Dockerfile"], bundle::DOCKERFILE.as_bytes());
        assert!(
            entries.iter().all(|(name, bytes)| !name.starts_with("pip")
                && !String::from_utf8_lossy(bytes).contains("https://mirror")),
            "pip settings reached the context"
        );
        let secrets = secrets(&options).unwrap();
        assert_eq!(secrets.len(), 1);
        assert_eq!(secrets[0].id, PIP_CONF_SECRET);
        assert!(String::from_utf8_lossy(secrets[0].bytes.expose_secret()).contains("mirror"));
    }

    #[test]
    fn the_base_image_is_always_named_and_its_digest_recorded_when_known() {
        let mut options = BuildOptions::new("t");
        let args = options.build_args("c");
        assert!(args.contains(&(
            "BASE_IMAGE".to_owned(),
            bundle::DEFAULT_BASE_IMAGE.to_owned()
        )));
        assert!(!args.iter().any(|(name, _)| name == "BASE_IMAGE_DIGEST"));
        options.base_image = Some("  ".to_owned());
        assert_eq!(
            options.base(),
            bundle::DEFAULT_BASE_IMAGE,
            "blank means the default"
        );
        options.base_image = Some("mine:1".to_owned());
        options.base_digest = Some("sha256:abc".to_owned());
        let args = options.build_args("c");
        assert!(args.contains(&("BASE_IMAGE".to_owned(), "mine:1".to_owned())));
        assert!(args.contains(&("BASE_IMAGE_DIGEST".to_owned(), "sha256:abc".to_owned())));
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
        let text = secrets(&options).unwrap_err().to_string();
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
        assert!(!dir.join("pip").exists() && !dir.join(EXPORTED_SECRETS_FOLDER).exists());
        assert_eq!(
            command,
            format!(
                "docker build --secret id=pip.conf,src={} --tag hailer-kernel:company \
                 --build-arg KERNEL_CONTRACT=marimo0.24.2-abc --build-arg \
                 'BASE_IMAGE=registry.example/python:3.12 slim' --no-cache {}",
                secret.display(),
                dir.display()
            )
        );
        let written = std::fs::read_to_string(dir.join("build-command.txt")).unwrap();
        assert_eq!(written.trim_end(), command);
    }

    #[test]
    fn host_settings_are_the_pip_conf_secret_unless_a_file_is_named() {
        let mut options = BuildOptions::new("t");
        options.host_pip_config = Some(SecretString::from(
            "[install]\nindex-url = https://host/simple\n",
        ));
        let found = secrets(&options).unwrap();
        assert_eq!(found[0].id, PIP_CONF_SECRET);
        assert!(String::from_utf8_lossy(found[0].bytes.expose_secret()).contains("https://host"));
        assert!(!format!("{found:?}").contains("https://host"), "{found:?}");

        let named = tempfile::tempdir().unwrap();
        let config = named.path().join("named.ini");
        std::fs::write(&config, "[global]\nindex-url = https://named/simple\n").unwrap();
        options.pip_config = Some(config);
        let found = secrets(&options).unwrap();
        assert_eq!(found.len(), 1);
        let conf = String::from_utf8_lossy(found[0].bytes.expose_secret()).into_owned();
        assert!(
            conf.contains("named") && !conf.contains("https://host"),
            "{conf}"
        );
    }

    // It reads Unix modes.
    #[cfg(unix)]
    #[test]
    fn exported_host_settings_are_private_and_need_no_links() {
        use std::os::unix::fs::PermissionsExt as _;
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("ctx");
        let mut options = BuildOptions::new("hailer-kernel:x");
        options.host_pip_config = Some(SecretString::from(
            "[install]\nindex-url = https://host/simple\n",
        ));
        let command = export_context(&dir, &options, "c").unwrap();
        let conf = dir.join("secrets/pip.conf");
        let meta = conf.symlink_metadata().unwrap();
        assert!(meta.is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let folder = dir.join("secrets").metadata().unwrap();
        assert_eq!(folder.permissions().mode() & 0o777, 0o700);
        assert!(
            std::fs::read_to_string(&conf)
                .unwrap()
                .contains("https://host/simple")
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(".dockerignore")).unwrap(),
            "secrets\n"
        );
        assert!(
            command.starts_with(&format!(
                "docker build --secret id=pip.conf,src={} ",
                conf.display()
            )) && command.ends_with(&dir.display().to_string()),
            "{command}"
        );
        assert!(!command.contains("https://host"));
    }

    #[test]
    fn export_refuses_a_folder_that_holds_files() {
        let out = tempfile::tempdir().unwrap();
        std::fs::write(out.path().join("Dockerfile"), "FROM mine\n").unwrap();
        let error = export_context(out.path(), &BuildOptions::new("t"), "c").unwrap_err();
        assert!(error.to_string().contains("not empty"), "{error}");
        assert_eq!(
            std::fs::read_to_string(out.path().join("Dockerfile")).unwrap(),
            "FROM mine\n"
        );
    }

    #[test]
    fn only_the_build_stage_reads_the_pip_and_wheel_folders() {
        let final_stage = bundle::DOCKERFILE
            .rsplit_once("\nFROM ")
            .map(|(_, last)| last)
            .unwrap();
        for id in [PIP_CONF_SECRET, CA_SECRET] {
            assert!(
                bundle::DOCKERFILE.contains(&format!("--mount=type=secret,id={id},")),
                "the build stage does not mount {id}"
            );
        }
        assert!(
            !bundle::DOCKERFILE.contains("pip/"),
            "pip settings are copied"
        );
        for needle in [
            "/build",
            "wheels/",
            "PIP_CONFIG_FILE",
            "PIP_CERT",
            "/run/secrets",
            "--mount",
        ] {
            assert!(
                !final_stage.contains(needle),
                "the final stage mentions {needle}"
            );
        }
        assert!(final_stage.contains("COPY --from=build /opt/hailer/venv /opt/hailer/venv"));
    }
}
