//! The sandbox runtime: unsafe-local's managed environment and launch, with marimo started
//! inside the system's sandbox (`hailer-sandbox`). On Linux the daemon's own program,
//! re-executed as `hailerd sandbox-exec`, makes the namespaces and relays the daemon's loopback
//! port into the sandbox; on macOS `sandbox-exec` applies a generated Seatbelt profile. Windows
//! has no sandbox runtime: a start there fails and names docker.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hailer_marimo::Wrapper;
use hailer_sandbox::{Limits, SandboxPlan};

use super::{KernelError, KernelSpec};

/// At most this many processes in the sandbox.
const PROCESS_LIMIT: u64 = 256;

/// Variables the sandbox's environment drops: they name the user's folders, which it hides
/// (marimo then uses the private home and `/tmp`).
const DROPPED_VARIABLES: &[&str] = &[
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
    "DOCKER_HOST",
];

/// What the sandbox runtime isolates on this system and how it limits the kernel, for the
/// audit trail; `memory` is `[kernel] memory` as written.
pub fn isolation(memory: &str) -> String {
    let values = if cfg!(target_os = "macos") {
        String::new()
    } else {
        format!(" (memory {memory} each, at most {PROCESS_LIMIT} processes)")
    };
    format!(
        "{}; {}{values}",
        hailer_sandbox::isolation_summary(),
        hailer_sandbox::LIMITS_IN_FORCE,
    )
}

/// Marks, as the docker runtime's copies do, that notebooks here may have been written by
/// confined code: an unsafe-local start then asks before running them as the user.
pub(super) fn mark_notebooks_written(workspace: &Path) {
    let state_dir = hailer_platform::state_folder_of(workspace);
    let marker = state_dir.join(hailer_docker::COPIES_MARKER_FILE);
    if marker.exists() {
        return;
    }
    let written = hailer_platform::ensure_state_folder(&state_dir).and_then(|()| {
        std::fs::write(
            &marker,
            "A sandbox kernel could write the notebooks in the notebooks folder.\n",
        )
    });
    if let Err(error) = written {
        tracing::warn!(%error, "could not mark the notebooks as written by a sandbox kernel");
    }
}

/// The kernel's temporary folder (its `TMPDIR`): the sandbox's private `/tmp` on Linux; on
/// macOS a folder of its own, made for this start in the user's temporary folder, the only one
/// the profile lets it write besides the notebooks.
#[cfg(not(target_os = "macos"))]
pub(super) fn temporary_folder() -> Result<PathBuf, KernelError> {
    Ok(PathBuf::from("/tmp"))
}

/// The kernel's temporary folder (its `TMPDIR`): on macOS a folder of its own, made for this
/// start in the user's temporary folder, the only one the profile lets it write besides the
/// notebooks.
#[cfg(target_os = "macos")]
pub(super) fn temporary_folder() -> Result<PathBuf, KernelError> {
    use std::os::unix::fs::DirBuilderExt as _;
    let base = canonical(&std::env::temp_dir());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos())
        .unwrap_or_default();
    let folder = base.join(format!("hailer-kernel-{}-{nanos}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&folder)
        .map_err(|source| {
            KernelError::Marimo(hailer_marimo::Error::Io {
                context: format!(
                    "cannot make the kernel's temporary folder {}",
                    folder.display()
                ),
                source,
            })
        })?;
    Ok(folder)
}

/// The program that starts marimo in the sandbox, for `spec` and the managed environment whose
/// interpreter is `python`, with `temporary` from [`temporary_folder`]. Fails where no sandbox
/// is offered.
pub(super) fn wrapper(
    spec: &KernelSpec,
    python: &Path,
    temporary: &Path,
) -> Result<Wrapper, KernelError> {
    if let Some(reason) = hailer_sandbox::not_offered_on(std::env::consts::OS) {
        return Err(KernelError::Invalid(reason));
    }
    let plan = plan(spec, python);
    platform_wrapper(&plan, temporary)
}

#[cfg(target_os = "linux")]
fn platform_wrapper(plan: &SandboxPlan, _temporary: &Path) -> Result<Wrapper, KernelError> {
    let program = std::env::current_exe().map_err(|source| {
        KernelError::Marimo(hailer_marimo::Error::Io {
            context: "cannot find hailerd's own program to start the sandbox".to_owned(),
            source,
        })
    })?;
    let plan = serde_json::to_string(plan)
        .map_err(|error| KernelError::Invalid(format!("cannot describe the sandbox: {error}")))?;
    Ok(Wrapper {
        program,
        args: vec![
            hailer_sandbox::LAUNCHER_SUBCOMMAND.to_owned(),
            plan,
            hailer_marimo::PORT_PLACEHOLDER.to_owned(),
            "--".to_owned(),
        ],
    })
}

#[cfg(target_os = "macos")]
fn platform_wrapper(plan: &SandboxPlan, temporary: &Path) -> Result<Wrapper, KernelError> {
    Ok(Wrapper {
        program: PathBuf::from(hailer_sandbox::SANDBOX_EXEC),
        args: vec![
            "-p".to_owned(),
            hailer_sandbox::seatbelt_profile(plan, hailer_marimo::PORT_PLACEHOLDER, temporary),
        ],
    })
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn platform_wrapper(_plan: &SandboxPlan, _temporary: &Path) -> Result<Wrapper, KernelError> {
    Err(KernelError::Invalid(
        hailer_sandbox::not_offered_on(std::env::consts::OS).unwrap_or_default(),
    ))
}

/// What the sandbox shows: the workspace's data (read-only) and notebooks (writable), the
/// managed environment and the Python it was made from (read-only), an empty home.
fn plan(spec: &KernelSpec, python: &Path) -> SandboxPlan {
    let workspace = absolute(&spec.workspace, &spec.workspace);
    let home = spec
        .base_env
        .get("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/nonexistent"));
    let environment_root = spec.kernel_envs.join(hailer_kernel_bundle::contract());
    let mut environment = vec![environment_root];
    environment.extend(base_python_prefixes(python));
    environment.dedup();
    SandboxPlan {
        notebooks: absolute(&workspace, &spec.notebooks_dir),
        data: absolute(&workspace, &spec.workspace_data),
        workspace,
        home,
        environment,
        limits: Limits {
            processes: PROCESS_LIMIT,
            memory_bytes: spec.memory.bytes,
        },
    }
}

/// The folders of the Python a venv was made from: the prefix its `pyvenv.cfg` names, and the
/// one its interpreter's link leads to.
fn base_python_prefixes(python: &Path) -> Vec<PathBuf> {
    let mut prefixes = Vec::new();
    let venv = python.parent().and_then(Path::parent);
    if let Some(text) = venv.and_then(|venv| std::fs::read_to_string(venv.join("pyvenv.cfg")).ok())
    {
        for line in text.lines() {
            if let Some((key, value)) = line.split_once('=')
                && key.trim() == "home"
                && let Some(prefix) = Path::new(value.trim()).parent()
            {
                prefixes.push(canonical(prefix));
            }
        }
    }
    if let Ok(real) = python.canonicalize()
        && let Some(prefix) = real.parent().and_then(Path::parent)
        && Some(prefix) != venv
    {
        prefixes.push(prefix.to_path_buf());
    }
    prefixes.sort();
    prefixes.dedup();
    prefixes
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn absolute(base: &Path, path: &Path) -> PathBuf {
    canonical(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    })
}

/// The sandbox's environment from the scrubbed one: no variable naming the user's hidden
/// folders, and `temporary` (from [`temporary_folder`]) as the temporary folder.
pub(super) fn environment(
    mut vars: BTreeMap<String, String>,
    temporary: &Path,
) -> BTreeMap<String, String> {
    for name in DROPPED_VARIABLES {
        vars.remove(*name);
    }
    vars.insert("TMPDIR".to_owned(), temporary.display().to_string());
    vars
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_environment_names_no_hidden_folder() {
        let vars = BTreeMap::from([
            ("XDG_RUNTIME_DIR".to_owned(), "/run/user/1000".to_owned()),
            ("SSH_AUTH_SOCK".to_owned(), "/tmp/ssh-x/agent".to_owned()),
            ("PATH".to_owned(), "/usr/bin".to_owned()),
            ("TMPDIR".to_owned(), "/home/ana/tmp".to_owned()),
        ]);
        let vars = environment(vars, Path::new("/tmp"));
        assert!(!vars.contains_key("XDG_RUNTIME_DIR"));
        assert!(!vars.contains_key("SSH_AUTH_SOCK"));
        assert_eq!(vars["PATH"], "/usr/bin");
        assert_eq!(vars["TMPDIR"], "/tmp");
    }

    #[test]
    fn a_venv_s_base_python_is_found_from_its_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("cpython-3.12");
        std::fs::create_dir_all(base.join("bin")).unwrap();
        let venv = dir.path().join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            format!("home = {}\nversion = 3.12\n", base.join("bin").display()),
        )
        .unwrap();
        let prefixes = base_python_prefixes(&venv.join("bin/python"));
        assert_eq!(prefixes, [base.canonicalize().unwrap()]);
    }
}
