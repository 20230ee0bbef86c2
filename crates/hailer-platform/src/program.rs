//! How programs are named and found on each system: executable file names, the Python
//! interpreters to try, and the layout of a virtual environment.

use std::path::{Path, PathBuf};

use crate::Os;

/// The file name of program `stem` (`hailerd`, `hailerd.exe`).
pub fn executable_name(os: Os, stem: &str) -> String {
    match os {
        Os::Windows => format!("{stem}.exe"),
        Os::Linux | Os::MacOs => stem.to_owned(),
    }
}

/// The Python interpreters worth trying for a new environment, best first, as file names to look
/// for in each `PATH` folder. On Windows the `py` launcher comes first: it knows every installed
/// Python, whether or not `PATH` lists it (it is asked for 3 with `-3`, see [`launcher_args`]).
pub fn python_candidates(os: Os) -> &'static [&'static str] {
    match os {
        Os::Windows => &["py.exe", "python.exe", "python3.exe"],
        Os::Linux | Os::MacOs => &["python3.13", "python3.12", "python3.11", "python3"],
    }
}

/// The arguments that go before a script's own when `program` is run: `-3` for the `py`
/// launcher, nothing for an interpreter.
pub fn launcher_args(program: &Path) -> &'static [&'static str] {
    // Either separator, so a Windows path reads the same on every host.
    let text = program.to_string_lossy();
    let name = text.rsplit(['/', '\\']).next().unwrap_or_default();
    let is_launcher = name.eq_ignore_ascii_case("py.exe") || name == "py";
    if is_launcher { &["-3"] } else { &[] }
}

/// The folder of a virtual environment that holds its interpreter and scripts.
pub(crate) fn venv_scripts_dir(os: Os, venv: &Path) -> PathBuf {
    match os {
        Os::Windows => venv.join("Scripts"),
        Os::Linux | Os::MacOs => venv.join("bin"),
    }
}

/// A virtual environment's interpreter.
pub fn venv_python(os: Os, venv: &Path) -> PathBuf {
    venv_scripts_dir(os, venv).join(executable_name(os, "python"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slashes(path: &Path) -> String {
        path.to_string_lossy().replace('\\', "/")
    }

    #[test]
    fn program_names_per_system() {
        let table = [
            (Os::Linux, "hailerd", "hailerd"),
            (Os::MacOs, "hailerd", "hailerd"),
            (Os::Windows, "hailerd", "hailerd.exe"),
            (Os::Windows, "python", "python.exe"),
        ];
        for (os, stem, expected) in table {
            assert_eq!(executable_name(os, stem), expected, "{os:?}");
        }
    }

    #[test]
    fn venv_layout_per_system_with_spaces_and_non_ascii() {
        let venv = Path::new("C:\\Users\\Zoë Ås\\Hailer env");
        let table = [
            (Os::Linux, "C:/Users/Zoë Ås/Hailer env/bin/python"),
            (Os::MacOs, "C:/Users/Zoë Ås/Hailer env/bin/python"),
            (Os::Windows, "C:/Users/Zoë Ås/Hailer env/Scripts/python.exe"),
        ];
        for (os, expected) in table {
            assert_eq!(slashes(&venv_python(os, venv)), expected, "{os:?}");
        }
    }

    #[test]
    fn python_candidates_per_system() {
        assert_eq!(python_candidates(Os::Windows)[0], "py.exe");
        assert!(python_candidates(Os::Windows).contains(&"python.exe"));
        assert_eq!(python_candidates(Os::Linux)[0], "python3.13");
        assert_eq!(python_candidates(Os::MacOs), python_candidates(Os::Linux));
        assert_eq!(launcher_args(Path::new("C:\\Windows\\py.exe")), ["-3"]);
        assert_eq!(launcher_args(Path::new("C:\\Windows\\PY.EXE")), ["-3"]);
        assert!(launcher_args(Path::new("/usr/bin/python3")).is_empty());
    }
}
