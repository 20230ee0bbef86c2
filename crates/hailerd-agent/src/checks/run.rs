//! Running ruff and ty on a script: a time limit, a scrubbed environment, a scratch folder as
//! the working directory (never the workspace or the data), and their JSON read back.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use tokio::io::AsyncWriteExt;

/// How long one checker may run.
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);
/// The only variables a checker sees besides its own scratch folders.
const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// The file name ruff is told the script has.
pub(super) const SCRIPT_NAME: &str = "hailer_notebook.py";

/// ruff's rules: real errors (pyflakes, pylint errors), mutable defaults, loop variables caught
/// by closures and bare excepts. The ignored ones are normal in notebooks.
const RUFF_SELECT: &str = "F,PLE,B006,B023,E722";
const RUFF_IGNORE: &str = "F401,F541,F704,F811,PLE1142";

/// A finding on a line of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RawFinding {
    pub line: u32,
    pub rule: String,
    pub message: String,
}

/// Runs `program` with `args` in `dir`, feeding `stdin`; stdout, or why it could not run.
async fn run(
    program: &Path,
    args: &[&str],
    stdin: Option<&str>,
    dir: &Path,
) -> Result<String, String> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", SAFE_PATH)
        .env("HOME", dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("LANG", "C.UTF-8")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command
        .spawn()
        .map_err(|error| format!("{} could not be started ({error})", program.display()))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())
            .await
            .map_err(|error| format!("{} did not take its input ({error})", program.display()))?;
        drop(pipe);
    }
    let output = tokio::time::timeout(CHECK_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "{} took longer than {} s",
                program.display(),
                CHECK_TIMEOUT.as_secs()
            )
        })?
        .map_err(|error| format!("{} failed ({error})", program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if stdout.trim_start().starts_with('[') {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let said = stderr
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("no output");
    Err(format!(
        "{} failed ({}): {said}",
        program.display(),
        output.status
    ))
}

#[derive(Deserialize)]
struct RuffItem {
    code: Option<String>,
    message: String,
    location: RuffLocation,
}

#[derive(Deserialize)]
struct RuffLocation {
    row: u32,
}

/// ruff on the script (given on stdin).
pub(super) async fn ruff(
    program: &Path,
    script: &str,
    target: &str,
    dir: &Path,
) -> Result<Vec<RawFinding>, String> {
    let target_version = format!("--target-version={target}");
    let args = [
        "check",
        "--isolated",
        "--no-cache",
        &target_version,
        "--output-format",
        "json",
        "--select",
        RUFF_SELECT,
        "--ignore",
        RUFF_IGNORE,
        "--stdin-filename",
        SCRIPT_NAME,
        "-",
    ];
    let stdout = run(program, &args, Some(script), dir).await?;
    let items: Vec<RuffItem> = serde_json::from_str(&stdout)
        .map_err(|error| format!("ruff's report could not be read ({error})"))?;
    Ok(items
        .into_iter()
        .map(|item| RawFinding {
            line: item.location.row,
            rule: item.code.unwrap_or_else(|| "syntax-error".to_owned()),
            message: item.message,
        })
        .collect())
}

#[derive(Deserialize)]
struct TyItem {
    check_name: String,
    description: String,
    location: TyLocation,
}

#[derive(Deserialize)]
struct TyLocation {
    path: String,
    positions: TyPositions,
}

#[derive(Deserialize)]
struct TyPositions {
    begin: TyPosition,
}

#[derive(Deserialize)]
struct TyPosition {
    line: u32,
}

/// What ty reports about idiomatic notebook code that is no mistake there:
/// * top-level `await`, which is how notebooks run async code;
/// * an attribute of a type variable ty could not solve (`Object of type `R@__call__` has no
///   attribute `encode``): Altair's `mark_*` methods are typed through a decorator ty does not
///   follow, so every `alt.Chart(df).mark_bar().encode(...)` would be reported;
/// * an attribute that `None` lacks in an optional result (`Attribute `df` is not defined on
///   `None` in union `DuckDBPyRelation | None``): `duckdb.sql(...)` is optional only for
///   statements that return no rows, and a cell that reads rows shows the error when it runs.
fn is_notebook_noise(description: &str) -> bool {
    description.contains("outside of an asynchronous function")
        || (description.starts_with("missing-attribute:")
            && names_unsolved_type_variable(description))
        || (description.starts_with("missing-union-attribute:")
            && description.contains("on `None` in union"))
}

/// Whether ty's description starts by naming an object whose type is a type variable
/// (`` Object of type `R@__call__` ``).
fn names_unsolved_type_variable(description: &str) -> bool {
    description
        .split_once("Object of type `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .is_some_and(|(name, _)| {
            name.split_once('@').is_some_and(|(variable, scope)| {
                !variable.is_empty()
                    && variable.chars().all(|c| c.is_alphanumeric() || c == '_')
                    && scope.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
        })
}

/// ty on the script, written to `dir`; `python` is the environment whose packages it knows.
pub(super) async fn ty(
    program: &Path,
    script: &str,
    python: Option<&Path>,
    dir: &Path,
) -> Result<Vec<RawFinding>, String> {
    let file: PathBuf = dir.join(SCRIPT_NAME);
    std::fs::write(&file, script)
        .map_err(|error| format!("the script could not be written ({error})"))?;
    let mut args: Vec<String> = vec!["check".into()];
    if let Some(python) = python {
        args.push("--python".into());
        args.push(python.display().to_string());
    }
    args.extend(
        [
            "--output-format",
            "gitlab",
            "--no-progress",
            "--color",
            "never",
            "--exit-zero",
            "--ignore",
            "import-not-found",
            SCRIPT_NAME,
        ]
        .map(str::to_owned),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let stdout = run(program, &args, None, dir).await?;
    let items: Vec<TyItem> = serde_json::from_str(&stdout)
        .map_err(|error| format!("ty's report could not be read ({error})"))?;
    Ok(items
        .into_iter()
        .filter(|item| item.location.path.ends_with(SCRIPT_NAME))
        .filter(|item| !is_notebook_noise(&item.description))
        .map(|item| {
            let prefix = format!("{}: ", item.check_name);
            RawFinding {
                line: item.location.positions.begin.line,
                message: item
                    .description
                    .strip_prefix(&prefix)
                    .unwrap_or(&item.description)
                    .to_owned(),
                rule: item.check_name,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_idiomatic_notebook_code_triggers_is_dropped() {
        for noise in [
            "missing-attribute: Object of type `R@__call__` has no attribute `encode`",
            "missing-union-attribute: Attribute `df` is not defined on `None` in union `DuckDBPyRelation | None`",
            "invalid-syntax: await is not allowed outside of an asynchronous function",
        ] {
            assert!(is_notebook_noise(noise), "{noise}");
        }
        for real in [
            "missing-attribute: Object of type `DataFrame` has no attribute `colums`",
            "missing-attribute: Module `polars` has no member `read_cvs`",
            "missing-union-attribute: Attribute `upper` is not defined on `int` in union `int | str`",
            "unresolved-reference: Name `totl` used when not defined",
        ] {
            assert!(!is_notebook_noise(real), "{real}");
        }
    }
}
