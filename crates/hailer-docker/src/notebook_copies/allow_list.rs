//! Which files are notebooks that may be copied, in either direction: plain relative names of
//! marimo notebooks, never anything another tool would run or import instead of a module.

use std::collections::HashSet;
use std::sync::LazyLock;

/// The largest notebook copied.
pub(crate) const MAX_NOTEBOOK_BYTES: usize = 5 * 1024 * 1024;
/// The most notebooks copied.
pub(crate) const MAX_NOTEBOOKS: usize = 500;
/// How many folders deep a notebook may be.
pub(crate) const MAX_FOLDERS: usize = 4;
/// The longest name.
const MAX_NAME_CHARS: usize = 255;

/// Why a file was not copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a relative name of plain parts (absolute, `..`, reserved characters, too long).
    BadName,
    /// A part starts with `.` or `__`.
    Hidden,
    /// Not a `.py` file.
    NotPython,
    /// More than four folders deep.
    TooDeep,
    /// A file another tool runs (test hooks, build scripts, start-up hooks).
    ToolFile,
    /// A folder or file named like this module.
    ShadowsModule(String),
    /// A part like `SALES~1`.
    ShortName,
    /// A Windows device name such as `con` or `lpt1`.
    DeviceName,
    /// Larger than 5 MiB.
    TooLarge,
    /// Not UTF-8 text (or it holds NUL bytes).
    NotText,
    /// Text without `import marimo` and `marimo.App(`.
    NotMarimo,
    /// A symbolic link (or junction).
    Link,
    /// Past the 500-notebook limit.
    OverLimit,
    /// Another name differs from it only in case.
    CaseDuplicate,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BadName => f.write_str("not a plain name"),
            Self::Hidden => f.write_str("hidden or private"),
            Self::NotPython => f.write_str("not a .py file"),
            Self::TooDeep => write!(f, "more than {MAX_FOLDERS} folders deep"),
            Self::ToolFile => f.write_str("a file other tools run"),
            Self::ShadowsModule(module) => write!(f, "named like the module {module}"),
            Self::ShortName => f.write_str("looks like a Windows short name"),
            Self::DeviceName => f.write_str("a Windows device name"),
            Self::TooLarge => f.write_str("larger than 5 MB"),
            Self::NotText => f.write_str("not UTF-8 text"),
            Self::NotMarimo => f.write_str("not a marimo notebook"),
            Self::Link => f.write_str("a link"),
            Self::OverLimit => write!(f, "over the {MAX_NOTEBOOKS}-notebook limit"),
            Self::CaseDuplicate => f.write_str("another name differs only in case"),
        }
    }
}

static MODULE_NAMES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("module_names.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
});

/// Base names (lower case) other tools run or import by themselves.
const TOOL_FILES: [&str; 14] = [
    "conftest.py",
    "setup.py",
    "noxfile.py",
    "tasks.py",
    "fabfile.py",
    "dodo.py",
    "conf.py",
    "manage.py",
    "gunicorn.conf.py",
    "ipython_config.py",
    "sitecustomize.py",
    "usercustomize.py",
    "__init__.py",
    "__main__.py",
];

const DEVICE_NAMES: [&str; 6] = ["con", "prn", "aux", "nul", "conin$", "conout$"];

/// Checks a relative, `/`-separated notebook name.
pub(crate) fn check_name(name: &str) -> Result<(), Refusal> {
    if name.is_empty()
        || name.contains('\\')
        || name.starts_with('/')
        || name.chars().count() > MAX_NAME_CHARS
    {
        return Err(Refusal::BadName);
    }
    let parts: Vec<&str> = name.split('/').collect();
    for part in &parts {
        check_part(part)?;
    }
    let Some(base) = parts.last().map(|b| b.to_lowercase()) else {
        return Err(Refusal::BadName);
    };
    if !name.ends_with(".py") {
        return Err(Refusal::NotPython);
    }
    if parts.len() - 1 > MAX_FOLDERS {
        return Err(Refusal::TooDeep);
    }
    if is_tool_file(&base) {
        return Err(Refusal::ToolFile);
    }
    for (index, part) in parts.iter().enumerate() {
        let lower = part.to_lowercase();
        let module = if index + 1 == parts.len() {
            lower.strip_suffix(".py").unwrap_or(&lower).to_owned()
        } else {
            lower
        };
        if MODULE_NAMES.contains(module.as_str()) {
            return Err(Refusal::ShadowsModule(module));
        }
    }
    Ok(())
}

/// Checks one folder or file name part.
fn check_part(part: &str) -> Result<(), Refusal> {
    if part.is_empty() || part == "." || part == ".." {
        return Err(Refusal::BadName);
    }
    if part.starts_with('.') || part.starts_with("__") {
        return Err(Refusal::Hidden);
    }
    if part.ends_with('.') || part.ends_with(' ') {
        return Err(Refusal::BadName);
    }
    if part
        .chars()
        .any(|c| "<>:\"|?*".contains(c) || c.is_control() || is_format_char(c))
    {
        return Err(Refusal::BadName);
    }
    if part
        .as_bytes()
        .windows(2)
        .any(|pair| pair[0] == b'~' && pair[1].is_ascii_digit())
    {
        return Err(Refusal::ShortName);
    }
    let stem = part.split('.').next().unwrap_or(part).to_lowercase();
    if is_device_name(&stem) {
        return Err(Refusal::DeviceName);
    }
    Ok(())
}

fn is_device_name(stem: &str) -> bool {
    if DEVICE_NAMES.contains(&stem) {
        return true;
    }
    ["com", "lpt"].iter().any(|prefix| {
        stem.strip_prefix(prefix).is_some_and(|rest| {
            let mut chars = rest.chars();
            matches!(
                (chars.next(), chars.next()),
                (Some('0'..='9' | '¹' | '²' | '³'), None)
            )
        })
    })
}

/// Invisible characters that change how a name looks (Unicode category Cf, the common ones).
fn is_format_char(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0001}'
            | '\u{e0020}'..='\u{e007f}'
    )
}

fn is_tool_file(base: &str) -> bool {
    TOOL_FILES.contains(&base)
        || (base.starts_with("test_") && base.ends_with(".py"))
        || base.ends_with("_test.py")
        || (base.starts_with("jupyter_") && base.ends_with("_config.py"))
}

/// Checks a notebook's bytes and returns its text.
pub(crate) fn check_contents(bytes: &[u8]) -> Result<&str, Refusal> {
    if bytes.len() > MAX_NOTEBOOK_BYTES {
        return Err(Refusal::TooLarge);
    }
    if bytes.contains(&0) {
        return Err(Refusal::NotText);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| Refusal::NotText)?;
    if text.contains("import marimo") && text.contains("marimo.App(") {
        Ok(text)
    } else {
        Err(Refusal::NotMarimo)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn names_table() {
        use Refusal::*;
        let module = |m: &str| ShadowsModule(m.to_owned());
        let cases: Vec<(&str, Result<(), Refusal>)> = vec![
            ("analysis.py", Ok(())),
            ("q3/review.py", Ok(())),
            ("a/b/c/d/notebook.py", Ok(())),
            ("Sales Review 2025.py", Ok(())),
            ("a/b/c/d/e/notebook.py", Err(TooDeep)),
            ("notes.txt", Err(NotPython)),
            ("analysis.PY", Err(NotPython)),
            ("analysis.pyw", Err(NotPython)),
            (".git/hooks/pre-commit.py", Err(Hidden)),
            (".vscode/settings.py", Err(Hidden)),
            ("__marimo__/x.py", Err(Hidden)),
            ("__pycache__/x.py", Err(Hidden)),
            ("__init__.py", Err(Hidden)),
            ("conftest.py", Err(ToolFile)),
            ("CONFTEST.py", Err(ToolFile)),
            ("tests/test_sales.py", Err(ToolFile)),
            ("sales_test.py", Err(ToolFile)),
            ("setup.py", Err(ToolFile)),
            ("gunicorn.conf.py", Err(ToolFile)),
            ("jupyter_server_config.py", Err(ToolFile)),
            ("sitecustomize.py", Err(ToolFile)),
            ("json.py", Err(module("json"))),
            ("Calendar.py", Err(module("calendar"))),
            ("polars.py", Err(module("polars"))),
            ("marimo.py", Err(module("marimo"))),
            ("pandas.py", Err(module("pandas"))),
            ("json/analysis.py", Err(module("json"))),
            ("SALES~1.py", Err(ShortName)),
            ("con.py", Err(DeviceName)),
            ("lpt1.py", Err(DeviceName)),
            ("com².py", Err(DeviceName)),
            ("console.py", Ok(())),
            ("/etc/passwd.py", Err(BadName)),
            ("../escape.py", Err(BadName)),
            ("a//b.py", Err(BadName)),
            ("a\\b.py", Err(BadName)),
            ("what?.py", Err(BadName)),
            ("trailing./x.py", Err(BadName)),
            ("zero\u{200b}width.py", Err(BadName)),
            ("new\nline.py", Err(BadName)),
            ("", Err(BadName)),
        ];
        for (name, expected) in cases {
            assert_eq!(check_name(name), expected, "{name:?}");
        }
    }

    #[test]
    fn contents_table() {
        let notebook = b"import marimo\n\napp = marimo.App()\n";
        assert!(check_contents(notebook).is_ok());
        assert_eq!(check_contents(b"print('hi')\n"), Err(Refusal::NotMarimo));
        assert_eq!(
            check_contents(b"import marimo\x00marimo.App("),
            Err(Refusal::NotText)
        );
        assert_eq!(check_contents(&[0xff, 0xfe]), Err(Refusal::NotText));
        let big = vec![b'#'; MAX_NOTEBOOK_BYTES + 1];
        assert_eq!(check_contents(&big), Err(Refusal::TooLarge));
    }

    proptest! {
        #[test]
        fn accepted_names_are_always_plain_and_relative(name in "[a-zA-Z0-9_./~ \\-]{0,40}") {
            if check_name(&name).is_ok() {
                prop_assert!(name.ends_with(".py"));
                prop_assert!(!name.starts_with('/'));
                prop_assert!(name.split('/').all(|p| !p.is_empty() && !p.starts_with('.') && !p.starts_with("__")));
                prop_assert!(name.split('/').count() <= MAX_FOLDERS + 1);
            }
        }

        #[test]
        fn any_text_is_judged_without_panicking(name in "\\PC{0,60}", bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = check_name(&name);
            let _ = check_contents(&bytes);
        }
    }
}
