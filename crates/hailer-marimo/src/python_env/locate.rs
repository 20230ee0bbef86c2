//! Finding a Python interpreter new enough for marimo.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use crate::error::{Error, Result};

/// The oldest Python accepted.
pub(super) const MIN_VERSION: PythonVersion = PythonVersion {
    major: 3,
    minor: 11,
    patch: 0,
};

/// How long a version probe may take (a cold interpreter on a slow disk).
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// A Python version as the interpreter reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PythonVersion {
    /// The first number, `3` in 3.12.1.
    pub major: u32,
    /// The second number, `12` in 3.12.1.
    pub minor: u32,
    /// The third number, `1` in 3.12.1.
    pub patch: u32,
}

impl fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl PythonVersion {
    /// Parses `3.12.1` (whitespace around it is ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        Some(Self {
            major,
            minor,
            patch,
        })
    }
}

/// A Python interpreter that ran and said what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Python {
    /// How it was reached: a name on `PATH`, a shim, a link, or the path the user gave.
    pub path: PathBuf,
    /// The version it reported (`sys.version_info`); at least `MIN_VERSION` for one that
    /// [`find_python`] returns.
    pub version: PythonVersion,
    /// `sys.implementation.name`, such as `cpython`.
    pub implementation: String,
    /// The real interpreter behind `path` (`sys.executable` with every link resolved): the same
    /// for every spelling of one interpreter.
    pub executable: PathBuf,
}

/// Finds a Python >= 3.11: `explicit` if given (and then only it), else the first of the
/// system's candidates (python3.13, python3.12, python3.11, python3; on Windows the `py`
/// launcher, then python.exe: `hailer_platform::python_candidates`) on `search_path`
/// (a `PATH`-style value; the process's `PATH` when `None`) that runs and is new enough. The
/// environment is then made from the real interpreter the candidate leads to.
pub async fn find_python(explicit: Option<&Path>, search_path: Option<&OsStr>) -> Result<Python> {
    if let Some(path) = explicit {
        let python = probe(path).await.map_err(|reason| Error::PythonUnusable {
            path: path.to_owned(),
            reason,
        })?;
        if python.version < MIN_VERSION {
            return Err(Error::PythonUnusable {
                path: path.to_owned(),
                reason: format!(
                    "it is Python {}, and {MIN_VERSION} or newer is needed",
                    python.version
                ),
            });
        }
        return Ok(python);
    }

    let path_value = match search_path {
        Some(value) => value.to_owned(),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    let mut tried = Vec::new();
    let candidates = hailer_platform::python_candidates(hailer_platform::Os::CURRENT);
    for name in candidates {
        for dir in std::env::split_paths(&path_value) {
            let candidate = dir.join(name);
            if !candidate.is_file() {
                continue;
            }
            match probe(&candidate).await {
                Ok(python) if python.version >= MIN_VERSION => return Ok(python),
                Ok(python) => tried.push(format!("{} is {}", candidate.display(), python.version)),
                Err(reason) => tried.push(format!("{}: {reason}", candidate.display())),
            }
        }
    }
    let tried = if tried.is_empty() {
        format!("{} on PATH, none found", candidates.join(", "))
    } else {
        tried.join("; ")
    };
    Err(Error::PythonNotFound { tried })
}

/// What the probe prints: the version, the implementation and the real executable, one a line.
const PROBE_CODE: &str = "import os, sys\n\
    print('%d.%d.%d' % sys.version_info[:3])\n\
    print(sys.implementation.name)\n\
    print(os.path.realpath(sys.executable))";

/// Runs the interpreter and asks what it is; the error is a short reason.
async fn probe(path: &Path) -> std::result::Result<Python, String> {
    let mut command = Command::new(path);
    command
        .args(hailer_platform::launcher_args(path))
        .args(["-I", "-c", PROBE_CODE])
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(PROBE_TIMEOUT, command.output())
        .await
        .map_err(|_| format!("it did not answer within {} s", PROBE_TIMEOUT.as_secs()))?
        .map_err(|e| format!("it could not be run ({e})"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(format!("it failed to run ({first})"));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    parse_probe(path, &stdout).ok_or_else(|| format!("it printed no version ({stdout:?})"))
}

/// Reads what [`PROBE_CODE`] printed.
fn parse_probe(path: &Path, printed: &str) -> Option<Python> {
    let mut lines = printed.lines();
    let version = PythonVersion::parse(lines.next()?)?;
    let implementation = lines.next()?.trim().to_owned();
    let executable = lines
        .next()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())?;
    if implementation.is_empty() || lines.next().is_some() {
        return None;
    }
    Some(Python {
        path: path.to_owned(),
        version,
        implementation,
        executable: PathBuf::from(executable),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        let v = PythonVersion::parse(" 3.12.1\n").unwrap();
        assert_eq!(v.to_string(), "3.12.1");
        assert!(v >= MIN_VERSION);
        assert!(PythonVersion::parse("3.10.13").unwrap() < MIN_VERSION);
        assert!(PythonVersion::parse("3.12").is_none());
        assert!(PythonVersion::parse("3.12.1.4").is_none());
        assert!(PythonVersion::parse("Python 3").is_none());
    }

    #[test]
    fn the_probe_names_version_implementation_and_real_executable() {
        let python = parse_probe(
            Path::new("/shims/python3"),
            "3.12.4\ncpython\n/opt/py 3.12/bin/python3.12\n",
        )
        .unwrap();
        assert_eq!(python.version.to_string(), "3.12.4");
        assert_eq!(python.implementation, "cpython");
        assert_eq!(python.executable, Path::new("/opt/py 3.12/bin/python3.12"));
        assert_eq!(python.path, Path::new("/shims/python3"));
        for bad in [
            "",
            "3.12.4\n",
            "3.12.4\ncpython\n",
            "x\ncpython\n/p\n",
            "3.12.4\ncpython\n/p\nmore\n",
        ] {
            assert!(parse_probe(Path::new("p"), bad).is_none(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn an_empty_path_finds_nothing_and_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let err = find_python(None, Some(dir.path().as_os_str()))
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("no Python 3.11 or newer"), "{text}");
        assert!(text.contains("HAILER_PYTHON"), "{text}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_broken_interpreter_is_skipped_with_its_reason() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("python3");
        std::fs::write(
            &fake,
            "#!/bin/sh\necho 'shim: no such version' >&2\nexit 127\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = find_python(None, Some(dir.path().as_os_str()))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("shim: no such version"), "{err}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn an_old_explicit_interpreter_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("python");
        std::fs::write(
            &fake,
            "#!/bin/sh\nprintf '3.10.2\\ncpython\\n/usr/bin/python3.10\\n'\n",
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = find_python(Some(&fake), None).await.unwrap_err();
        assert!(err.to_string().contains("3.10.2"), "{err}");
        assert!(err.to_string().contains("3.11.0 or newer"), "{err}");
    }
}
