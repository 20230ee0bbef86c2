//! Shared set-up for the tests that start a real marimo.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;

use hailer_marimo::{LaunchOptions, MarimoServer, launch, scrub_environment};

/// A variable the tests plant in the parent environment and expect to reach the kernel.
pub(crate) const VISIBLE_VAR: &str = "HAILER_TEST_VISIBLE";
/// A provider variable the caller names explicitly as secret.
pub(crate) const PROVIDER_VAR: &str = "HAILER_TEST_PROVIDER_VAR";
/// Planted secrets: (name, value). None may reach the kernel.
pub(crate) const PLANTED_SECRETS: [(&str, &str); 5] = [
    ("PASSWORD", "planted-password-value"),
    ("MY_SERVICE_TOKEN", "planted-service-token"),
    ("OPENAI_API_KEY", "sk-planted-openai"),
    ("warehouse_connection_string", "postgres://planted"),
    (PROVIDER_VAR, "planted-provider-value"),
];

/// The Python whose environment has marimo 0.24.2, polars and duckdb.
pub(crate) fn test_python() -> PathBuf {
    let Some(path) = std::env::var_os("HAILER_TEST_PYTHON").filter(|p| !p.is_empty()) else {
        panic!(
            "HAILER_TEST_PYTHON is not set. These tests start a real marimo and need a Python \
             whose environment has marimo==0.24.2, polars and duckdb: run scripts/test-prereqs.sh \
             at the repository root (it creates .cache/test-venv), then `source .cache/test-env.sh` \
             and run the tests again."
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "HAILER_TEST_PYTHON names {}, which does not exist; run scripts/test-prereqs.sh again",
        path.display()
    );
    path
}

/// The starter notebook: imports, a markdown cell, and a global the tests read back.
pub(crate) const STARTER_NOTEBOOK: &str = r##"import marimo

__generated_with = "0.24.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo
    import polars as pl
    import duckdb
    from pathlib import Path

    return Path, duckdb, mo, pl


@app.cell
def _(mo):
    welcome = mo.md("# Analysis")
    welcome
    return (welcome,)


@app.cell
def _():
    base_value = 40
    return (base_value,)


if __name__ == "__main__":
    app.run()
"##;

/// A temporary workspace with `notebooks/analysis.py`.
pub(crate) struct TestWorkspace {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub notebooks: PathBuf,
    pub notebook: PathBuf,
}

impl TestWorkspace {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let notebooks = root.join("notebooks");
        std::fs::create_dir_all(&notebooks).unwrap();
        let notebook = notebooks.join("analysis.py");
        std::fs::write(&notebook, STARTER_NOTEBOOK).unwrap();
        Self {
            _dir: dir,
            root,
            notebooks,
            notebook,
        }
    }

    /// Starts marimo here with this process's environment plus the planted variables.
    pub(crate) async fn launch(&self) -> MarimoServer {
        let mut parent: Vec<(String, String)> = std::env::vars().collect();
        parent.push((VISIBLE_VAR.to_owned(), "visible".to_owned()));
        for (name, value) in PLANTED_SECRETS {
            parent.push((name.to_owned(), value.to_owned()));
        }
        let env = scrub_environment(parent, &[PROVIDER_VAR, "OPENAI_API_KEY"]);
        let mut options = LaunchOptions::new(
            test_python(),
            self.root.clone(),
            PathBuf::from("notebooks"),
            env,
        );
        options.preferred_port = 0;
        launch(&options).await.unwrap()
    }
}
