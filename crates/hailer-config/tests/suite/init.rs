//! `hailer init`: layout, idempotence, `--force`, `--kernel`.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use hailer_config::{InitAction, Runtime, STARTER_NOTEBOOK, init};
use pretty_assertions::assert_eq;

/// Every path under `root` with its kind, permissions and content.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o777;
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            if meta.is_dir() {
                out.insert(relative, format!("dir {mode:o}"));
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(relative, format!("file {mode:o} {}", checksum(&bytes)));
            }
        }
    }
    out
}

/// FNV-1a: enough to tell contents apart in a test.
fn checksum(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap().join("ws");
    (dir, ws)
}

#[test]
fn creates_the_documented_layout() {
    let (_dir, ws) = workspace();
    let report = init(&ws, false, None).unwrap();
    for file in [
        "hailer.toml",
        ".config/hailer/context/00-about-this-workspace.md",
        ".config/hailer/skills/data-quality-check/SKILL.md",
        ".config/hailer/prompts/first-look.md",
        "notebooks/analysis.py",
        ".hailer/.gitignore",
    ] {
        assert!(ws.join(file).is_file(), "{file} is missing");
        assert!(
            report.written().any(|p| p == Path::new(file)),
            "{file} not reported"
        );
    }
    for folder in ["data", "notebooks", ".hailer", ".config/hailer/context"] {
        assert!(ws.join(folder).is_dir(), "{folder} is missing");
    }
    assert_eq!(report.kept().count(), 0);
    assert_eq!(report.runtime_mismatch, None);

    let toml = std::fs::read_to_string(ws.join("hailer.toml")).unwrap();
    assert!(toml.contains("\n[kernel]\nruntime = \"docker\""), "{toml}");
    assert_eq!(
        std::fs::read_to_string(ws.join(".hailer/.gitignore")).unwrap(),
        "*\n"
    );
    let mode = std::fs::metadata(ws.join(".hailer"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
    assert_eq!(
        std::fs::read_to_string(ws.join("notebooks/analysis.py")).unwrap(),
        STARTER_NOTEBOOK
    );
    assert!(STARTER_NOTEBOOK.contains("marimo.App("));

    let skill =
        std::fs::read_to_string(ws.join(".config/hailer/skills/data-quality-check/SKILL.md"))
            .unwrap();
    let front = skill
        .strip_prefix("---\n")
        .unwrap()
        .split("\n---\n")
        .next()
        .unwrap();
    assert!(
        front.lines().any(|line| line == "name: data-quality-check"),
        "{front}"
    );
    assert!(
        front
            .lines()
            .any(|line| line.starts_with("description: ") && line.len() > 20),
        "{front}"
    );
    let prompt = std::fs::read_to_string(ws.join(".config/hailer/prompts/first-look.md")).unwrap();
    assert!(prompt.contains("{{args}}"));
}

#[test]
fn a_second_run_changes_nothing() {
    let (_dir, ws) = workspace();
    init(&ws, false, None).unwrap();
    let before = snapshot(&ws);
    let report = init(&ws, false, None).unwrap();
    assert_eq!(snapshot(&ws), before);
    assert_eq!(report.written().count(), 0, "{report:#?}");
    assert!(
        report
            .entries
            .iter()
            .all(|entry| entry.action == InitAction::Kept)
    );
}

#[test]
fn force_rewrites_only_the_configuration_file() {
    let (_dir, ws) = workspace();
    init(&ws, false, None).unwrap();
    std::fs::write(ws.join("hailer.toml"), "[model]\nname = \"mine\"\n").unwrap();
    std::fs::write(ws.join("notebooks/analysis.py"), "# my edits\n").unwrap();
    std::fs::write(ws.join(".config/hailer/prompts/first-look.md"), "mine\n").unwrap();
    let before = snapshot(&ws);

    let report = init(&ws, true, Some(Runtime::UnsafeLocal)).unwrap();
    let after = snapshot(&ws);
    let changed: Vec<&PathBuf> = after
        .keys()
        .filter(|path| before.get(*path) != after.get(*path))
        .collect();
    assert_eq!(changed, vec![&PathBuf::from("hailer.toml")]);
    assert_eq!(
        report.written().collect::<Vec<_>>(),
        vec![Path::new("hailer.toml")]
    );
    assert_eq!(report.entries[0].action, InitAction::Rewritten);
    let toml = std::fs::read_to_string(ws.join("hailer.toml")).unwrap();
    assert!(toml.contains("runtime = \"unsafe-local\""), "{toml}");
    assert!(!toml.contains("mine"));
}

#[test]
fn a_kept_file_with_another_runtime_is_reported() {
    let (_dir, ws) = workspace();
    init(&ws, false, None).unwrap();
    let report = init(&ws, false, Some(Runtime::UnsafeLocal)).unwrap();
    let mismatch = report.runtime_mismatch.unwrap();
    assert_eq!(mismatch.requested, Runtime::UnsafeLocal);
    assert_eq!(mismatch.kept.as_deref(), Some("docker"));
    assert_eq!(mismatch.config_file, PathBuf::from("hailer.toml"));

    // Asking for what the file already says is no mismatch.
    assert_eq!(
        init(&ws, false, Some(Runtime::Docker))
            .unwrap()
            .runtime_mismatch,
        None
    );

    // A file without [kernel] means docker; a broken one cannot be read.
    std::fs::write(ws.join("hailer.toml"), "[model]\n").unwrap();
    let report = init(&ws, false, Some(Runtime::UnsafeLocal)).unwrap();
    assert_eq!(
        report.runtime_mismatch.unwrap().kept.as_deref(),
        Some("docker")
    );
    std::fs::write(ws.join("hailer.toml"), "[kernel\n").unwrap();
    let report = init(&ws, false, Some(Runtime::Docker)).unwrap();
    assert_eq!(report.runtime_mismatch.unwrap().kept, None);
}

#[test]
fn an_existing_nested_configuration_is_kept_not_shadowed() {
    let (_dir, ws) = workspace();
    std::fs::create_dir_all(ws.join(".config/hailer")).unwrap();
    std::fs::write(
        ws.join(".config/hailer/hailer.toml"),
        "[kernel]\nruntime = \"unsafe-local\"\n",
    )
    .unwrap();
    let report = init(&ws, false, None).unwrap();
    assert!(!ws.join("hailer.toml").exists());
    assert!(
        report
            .kept()
            .any(|p| p == Path::new(".config/hailer/hailer.toml"))
    );
}

#[test]
fn the_users_gitignore_and_files_are_left_alone() {
    let (_dir, ws) = workspace();
    std::fs::create_dir_all(ws.join("data")).unwrap();
    std::fs::write(ws.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(ws.join("data/sales.csv"), "a,b\n1,2\n").unwrap();
    init(&ws, false, None).unwrap();
    assert_eq!(
        std::fs::read_to_string(ws.join(".gitignore")).unwrap(),
        "target/\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("data/sales.csv")).unwrap(),
        "a,b\n1,2\n"
    );
}

#[test]
fn deleted_examples_stay_deleted_but_a_missing_notebook_comes_back() {
    let (_dir, ws) = workspace();
    init(&ws, false, None).unwrap();
    std::fs::remove_file(ws.join(".config/hailer/prompts/first-look.md")).unwrap();
    std::fs::remove_file(ws.join("notebooks/analysis.py")).unwrap();
    init(&ws, false, None).unwrap();
    assert!(!ws.join(".config/hailer/prompts/first-look.md").exists());
    assert!(ws.join("notebooks/analysis.py").is_file());
}

#[test]
fn a_loose_hailer_folder_is_made_private_again() {
    let (_dir, ws) = workspace();
    init(&ws, false, None).unwrap();
    std::fs::set_permissions(ws.join(".hailer"), std::fs::Permissions::from_mode(0o755)).unwrap();
    init(&ws, false, None).unwrap();
    let mode = std::fs::metadata(ws.join(".hailer"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn a_file_where_a_folder_belongs_is_a_clear_error() {
    let (_dir, ws) = workspace();
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("data"), "not a folder").unwrap();
    let error = init(&ws, false, None).unwrap_err();
    assert!(
        error.to_string().contains("exists but is not a folder"),
        "{error}"
    );
}

#[test]
fn a_dangling_symlink_is_never_written_through() {
    let (dir, ws) = workspace();
    std::fs::create_dir_all(ws.join("notebooks")).unwrap();
    let target = dir.path().join("elsewhere.py");
    std::os::unix::fs::symlink(&target, ws.join("notebooks/analysis.py")).unwrap();
    let report = init(&ws, false, None).unwrap();
    assert!(!target.exists(), "init wrote through a symlink");
    assert!(
        report
            .kept()
            .any(|p| p == Path::new("notebooks/analysis.py"))
    );
}
