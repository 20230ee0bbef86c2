//! `hailer init` and `hailer config check` as a user runs them.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use hailer_tests::bins;

fn hailer(cwd: &Path, args: &[&str]) -> Output {
    Command::new(bins::path("hailer"))
        .args(args)
        .current_dir(cwd)
        .env("HAILER_HOME", cwd.join(".hailer-home-for-test"))
        .env_remove("HAILER_KERNEL")
        .env_remove("HAILER_CONFIG")
        .env_remove("HAILER_WORKSPACE")
        .output()
        .unwrap()
}

/// Stops the hailerd that `init` started to ask about Docker, when the test ends.
struct StopsDaemon<'a>(&'a Path);

impl Drop for StopsDaemon<'_> {
    fn drop(&mut self) {
        if self
            .0
            .join(".hailer-home-for-test/run/hailerd.json")
            .exists()
        {
            let _ = hailer(self.0, &["daemon", "stop"]);
        }
    }
}

/// Every file under `dir` with its contents and mode.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(dir).unwrap().display().to_string();
            if relative.starts_with(".hailer-home-for-test") {
                continue;
            }
            let mode = entry.metadata().unwrap().permissions().mode();
            if path.is_dir() {
                files.insert(format!("{relative}/"), (Vec::new(), mode));
                stack.push(path);
            } else {
                files.insert(relative, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    files
}

#[test]
fn init_creates_the_layout_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let _daemon = StopsDaemon(dir.path());
    let first = hailer(dir.path(), &["init"]);
    assert!(first.status.success(), "{first:?}");
    for expected in [
        "hailer.toml",
        "notebooks/analysis.py",
        "data/",
        ".config/hailer/context/",
        ".config/hailer/skills/",
        ".config/hailer/prompts/",
        ".hailer/.gitignore",
    ] {
        assert!(
            dir.path().join(expected).exists(),
            "{expected} missing after init"
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".hailer/.gitignore"))
            .unwrap()
            .trim(),
        "*"
    );
    let toml = std::fs::read_to_string(dir.path().join("hailer.toml")).unwrap();
    assert!(toml.contains("runtime = \"docker\""), "{toml}");
    let notebook = std::fs::read_to_string(dir.path().join("notebooks/analysis.py")).unwrap();
    assert!(notebook.contains("import marimo") && notebook.contains("marimo.App("));
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(said.contains("Next steps"), "{said}");
    assert!(said.contains("Kernel: docker"), "{said}");

    let before = snapshot(dir.path());
    let second = hailer(dir.path(), &["init"]);
    assert!(second.status.success());
    assert_eq!(snapshot(dir.path()), before, "a second init changed files");

    // --force rewrites hailer.toml and nothing else.
    std::fs::write(dir.path().join("hailer.toml"), "# edited\n").unwrap();
    std::fs::write(dir.path().join("notebooks/analysis.py"), "# mine\n").unwrap();
    let forced = hailer(dir.path(), &["init", "--force", "--kernel", "unsafe-local"]);
    assert!(forced.status.success(), "{forced:?}");
    let after = snapshot(dir.path());
    let toml = std::fs::read_to_string(dir.path().join("hailer.toml")).unwrap();
    assert!(toml.contains("runtime = \"unsafe-local\""), "{toml}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notebooks/analysis.py")).unwrap(),
        "# mine\n"
    );
    let changed: Vec<_> = after
        .iter()
        .filter(|(path, value)| before.get(*path) != Some(value))
        .map(|(path, _)| path.clone())
        .collect();
    assert_eq!(changed, vec!["hailer.toml", "notebooks/analysis.py"]);
}

#[test]
fn init_offers_the_sandbox_by_name_where_docker_does_not_answer() {
    let dir = tempfile::tempdir().unwrap();
    let _daemon = StopsDaemon(dir.path());
    let first = Command::new(bins::path("hailer"))
        .arg("init")
        .current_dir(dir.path())
        .env("HAILER_HOME", dir.path().join(".hailer-home-for-test"))
        .env("DOCKER_HOST", "unix:///nonexistent/hailer-test/docker.sock")
        .env_remove("HAILER_KERNEL")
        .env_remove("HAILER_CONFIG")
        .env_remove("HAILER_WORKSPACE")
        .output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    let said = String::from_utf8_lossy(&first.stdout);
    assert!(
        said.contains("Kernel: docker, but no Docker engine answers here"),
        "{said}"
    );
    assert!(
        said.contains("set runtime = \"sandbox\" under [kernel] to run notebook code in this system's own sandbox (no network, data read-only, no Docker needed)"),
        "{said}"
    );
    // The default stays docker: nothing is chosen for the user.
    let toml = std::fs::read_to_string(dir.path().join("hailer.toml")).unwrap();
    assert!(toml.contains("runtime = \"docker\""), "{toml}");

    // Choosing it by name is said back plainly.
    let chosen = hailer(dir.path(), &["init", "--force", "--kernel", "sandbox"]);
    assert!(chosen.status.success(), "{chosen:?}");
    let said = String::from_utf8_lossy(&chosen.stdout);
    assert!(
        said.contains(
            "Kernel: sandbox. Notebook code runs in your Python, in this system's own sandbox"
        ),
        "{said}"
    );
    let toml = std::fs::read_to_string(dir.path().join("hailer.toml")).unwrap();
    assert!(toml.contains("runtime = \"sandbox\""), "{toml}");
}

#[test]
fn init_refuses_the_old_runtime_name_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let output = hailer(dir.path(), &["init", "--kernel", "local"]);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("unsafe-local"), "{said}");
    assert!(!dir.path().join("hailer.toml").exists());
}

#[test]
fn config_check_reports_problems_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let _daemon = StopsDaemon(dir.path());
    assert!(hailer(dir.path(), &["init"]).status.success());
    let clean = hailer(dir.path(), &["config", "check"]);
    assert!(clean.status.success(), "{clean:?}");

    std::fs::write(
        dir.path().join("hailer.toml"),
        "[kernel]\nruntime = \"local\"\n[model]\nname = 5\n[web]\nallowed_domains = [\"*\"]\n",
    )
    .unwrap();
    let broken = hailer(dir.path(), &["config", "check"]);
    assert_eq!(broken.status.code(), Some(1));
    let said = String::from_utf8_lossy(&broken.stdout);
    for fragment in ["unsafe-local", "name", "allowed_domains", "hailer.toml"] {
        assert!(said.contains(fragment), "{fragment} not in {said}");
    }
    let json = hailer(dir.path(), &["config", "check", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["fatal"].as_array().unwrap().len(), 3, "{report}");

    std::fs::write(
        dir.path().join("hailer.toml"),
        b"[model]\nname = \"\xff\xfe\"\n",
    )
    .unwrap();
    let bytes = hailer(dir.path(), &["config", "check"]);
    assert_eq!(bytes.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bytes.stdout).contains("UTF-8"));
}

#[test]
fn init_on_a_kept_file_gives_the_next_steps_of_that_file() {
    let workspace = hailer_tests::TestWorkspace::empty(Vec::new());
    workspace.write(
        "hailer.toml",
        "[hailer]\ndata_dir = \"sales-data\"\n[model]\nprovider = \"acme\"\n\
         [model_providers.acme]\nbase_url = \"https://llm.acme.example/v1\"\nenv_key = \"ACME_LLM_KEY\"\n\
         [kernel]\nruntime = \"unsafe-local\"\n",
    );
    let output = workspace.hailer(&["init"]);
    let said = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{said}");
    assert!(said.contains("kept    hailer.toml"), "{said}");
    assert!(said.contains("Set ACME_LLM_KEY in the shell"), "{said}");
    assert!(said.contains("files in sales-data/."), "{said}");
    assert!(said.contains("Kernel: unsafe-local."), "{said}");
    // A kept file is not the user's own choice: its runtime and provider wait for trust.
    assert!(
        said.contains("none of them applies until you have read it and run `hailer trust`"),
        "{said}"
    );
    assert!(!said.contains("OPENAI_API_KEY"), "{said}");
}
