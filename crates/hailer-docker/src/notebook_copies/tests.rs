//! Copies in and back against a kernel kept in memory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::*;

const NOTEBOOK: &str = "import marimo\n\napp = marimo.App()\n";

fn notebook(marker: &str) -> String {
    format!("{NOTEBOOK}# {marker}\n")
}

/// A kernel's notebooks folder in memory: path → (text, modification time).
#[derive(Default)]
struct FakeKernel {
    files: Mutex<BTreeMap<String, (String, f64)>>,
    clock: Mutex<f64>,
    reads: AtomicUsize,
}

impl FakeKernel {
    fn put(&self, name: &str, text: &str) {
        let mut clock = self.clock.lock().unwrap();
        *clock += 1.0;
        self.files
            .lock()
            .unwrap()
            .insert(format!("/work/notebooks/{name}"), (text.to_owned(), *clock));
    }

    fn text(&self, name: &str) -> Option<String> {
        self.files
            .lock()
            .unwrap()
            .get(&format!("/work/notebooks/{name}"))
            .map(|(text, _)| text.clone())
    }
}

impl KernelFiles for FakeKernel {
    async fn list(&self, folder: &str) -> Result<Vec<KernelEntry>, String> {
        let prefix = format!("{folder}/");
        let files = self.files.lock().unwrap();
        let mut entries: BTreeMap<String, KernelEntry> = BTreeMap::new();
        for (path, (text, modified)) in files.iter() {
            let Some(rest) = path.strip_prefix(&prefix) else {
                continue;
            };
            let entry = match rest.split_once('/') {
                Some((dir, _)) => KernelEntry {
                    path: format!("{prefix}{dir}"),
                    is_directory: true,
                    stamp: None,
                },
                None => KernelEntry {
                    path: path.clone(),
                    is_directory: false,
                    stamp: Some(KernelStamp {
                        modified: *modified,
                        size: text.len() as u64,
                    }),
                },
            };
            entries.insert(entry.path.clone(), entry);
        }
        Ok(entries.into_values().collect())
    }

    async fn read(&self, path: &str, max_bytes: u64) -> Result<KernelRead, String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let files = self.files.lock().unwrap();
        let (text, _) = files.get(path).ok_or("no such file")?;
        Ok(if text.len() as u64 > max_bytes {
            KernelRead::TooLarge
        } else {
            KernelRead::Text(text.clone())
        })
    }

    async fn create(
        &self,
        folder: &str,
        name: &str,
        bytes: &[u8],
    ) -> Result<Option<KernelStamp>, String> {
        let relative = format!("{folder}/{name}");
        let relative = relative
            .strip_prefix("/work/notebooks/")
            .unwrap()
            .to_owned();
        self.put(&relative, std::str::from_utf8(bytes).unwrap());
        let files = self.files.lock().unwrap();
        let (text, modified) = &files[&format!("{folder}/{name}")];
        Ok(Some(KernelStamp {
            modified: *modified,
            size: text.len() as u64,
        }))
    }
}

struct Workspace {
    _dir: tempfile::TempDir,
    notebooks: std::path::PathBuf,
    state: std::path::PathBuf,
}

fn workspace(files: &[(&str, &str)]) -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let notebooks = dir.path().join("notebooks");
    let state = dir.path().join(".hailer");
    for (name, text) in files {
        let path = notebooks.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::create_dir_all(&notebooks).unwrap();
    Workspace {
        _dir: dir,
        notebooks,
        state,
    }
}

fn read(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join(name)).unwrap()
}

async fn back(kernel: &FakeKernel, ws: &Workspace, state: &mut CopyState) -> CopyReport {
    copy_back(
        kernel,
        &ws.notebooks,
        &ws.state,
        state,
        CopyLimits::background(),
    )
    .await
}

#[tokio::test]
async fn allowed_notebooks_go_in_and_unchanged_ones_are_not_read_back() {
    let ws = workspace(&[
        ("analysis.py", NOTEBOOK),
        ("q3/review.py", &notebook("q3")),
        ("conftest.py", NOTEBOOK),
        ("notes.py", "print('not a notebook')\n"),
    ]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    let report = copy_in(&kernel, &ws.notebooks, &mut state).await;
    assert_eq!(report.copied, ["analysis.py", "q3/review.py"]);
    assert_eq!(kernel.text("q3/review.py").unwrap(), notebook("q3"));
    assert!(kernel.text("conftest.py").is_none());
    let line = report.refused_line().unwrap();
    assert!(line.starts_with("Not copied into the kernel: "), "{line}");
    assert!(
        line.contains("conftest.py (a file other tools run)"),
        "{line}"
    );
    assert!(line.contains("notes.py (not a marimo notebook)"), "{line}");

    let report = back(&kernel, &ws, &mut state).await;
    assert!(report.copied.is_empty());
    assert_eq!(report.unchanged, 2);
    assert_eq!(
        kernel.reads.load(Ordering::SeqCst),
        0,
        "unchanged stamps are not read"
    );
    assert!(!ws.state.join(MARKER_FILE).exists());
}

#[tokio::test]
async fn a_change_in_the_kernel_comes_back_and_sets_the_marker() {
    let ws = workspace(&[("analysis.py", NOTEBOOK)]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    copy_in(&kernel, &ws.notebooks, &mut state).await;
    kernel.put("analysis.py", &notebook("changed"));
    kernel.put("new/fresh.py", &notebook("fresh"));
    let report = back(&kernel, &ws, &mut state).await;
    assert_eq!(report.copied, ["analysis.py", "new/fresh.py"]);
    assert_eq!(read(&ws.notebooks, "analysis.py"), notebook("changed"));
    assert_eq!(read(&ws.notebooks, "new/fresh.py"), notebook("fresh"));
    assert!(ws.state.join(MARKER_FILE).exists());
    assert!(report.backups.is_empty());
    // the same content touched again is not written again
    kernel.put("analysis.py", &notebook("changed"));
    let report = back(&kernel, &ws, &mut state).await;
    assert!(report.copied.is_empty());
}

#[tokio::test]
async fn a_notebook_changed_on_both_sides_is_backed_up_first() {
    let ws = workspace(&[("analysis.py", NOTEBOOK)]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    copy_in(&kernel, &ws.notebooks, &mut state).await;
    std::fs::write(ws.notebooks.join("analysis.py"), notebook("mine")).unwrap();
    kernel.put("analysis.py", &notebook("kernel"));
    let report = back(&kernel, &ws, &mut state).await;
    assert_eq!(report.copied, ["analysis.py"]);
    assert_eq!(read(&ws.notebooks, "analysis.py"), notebook("kernel"));
    assert_eq!(report.backups.len(), 1);
    let backup = &report.backups[0];
    assert!(backup.starts_with(ws.state.join(BACKUP_FOLDER)));
    assert_eq!(std::fs::read_to_string(backup).unwrap(), notebook("mine"));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("changed both here and in the kernel"))
    );
}

#[tokio::test]
async fn hostile_names_stay_in_the_kernel_and_deletions_do_not_come_back() {
    let ws = workspace(&[("analysis.py", NOTEBOOK)]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    copy_in(&kernel, &ws.notebooks, &mut state).await;
    kernel.files.lock().unwrap().clear();
    for name in [
        "conftest.py",
        ".git/hooks/pre-commit.py",
        "json.py",
        "SALES~1.py",
        "a/b/c/d/e/deep.py",
        "Twin.py",
        "twin.py",
    ] {
        kernel.put(name, NOTEBOOK);
    }
    kernel.put("hailer.toml", "[kernel]\nruntime = \"unsafe-local\"\n");
    let report = back(&kernel, &ws, &mut state).await;
    assert!(report.copied.is_empty(), "{:?}", report.copied);
    let mut on_disk: Vec<String> = std::fs::read_dir(&ws.notebooks)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, ["analysis.py"], "nothing new, nothing deleted");
    let refused: Vec<&str> = report
        .refused
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    for name in [
        "conftest.py",
        ".git/",
        "json.py",
        "SALES~1.py",
        "Twin.py",
        "twin.py",
    ] {
        assert!(refused.contains(&name), "{name} in {refused:?}");
    }
    let line = report.refused_line().unwrap();
    assert!(line.ends_with("and 1 more."), "{line}");
}

#[tokio::test]
async fn new_notebooks_stop_at_the_session_cap() {
    let ws = workspace(&[]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    state.new_notebooks = MAX_NEW_NOTEBOOKS;
    kernel.put("one_more.py", NOTEBOOK);
    let report = back(&kernel, &ws, &mut state).await;
    assert!(report.copied.is_empty());
    assert!(!ws.notebooks.join("one_more.py").exists());
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("new ones stay in the kernel"))
    );
    // the same warning is not given twice
    let report = back(&kernel, &ws, &mut state).await;
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[tokio::test]
async fn a_pass_out_of_bytes_is_cut_short_and_leaves_files_as_they_were() {
    let ws = workspace(&[("a.py", NOTEBOOK), ("b.py", NOTEBOOK)]);
    let kernel = FakeKernel::default();
    let mut state = CopyState::new();
    copy_in(&kernel, &ws.notebooks, &mut state).await;
    kernel.put("a.py", &notebook("a"));
    kernel.put("b.py", &notebook("b"));
    let limits = CopyLimits {
        time: Duration::from_secs(10),
        bytes: (notebook("a").len() + 1) as u64,
    };
    let report = copy_back(&kernel, &ws.notebooks, &ws.state, &mut state, limits).await;
    assert!(report.cut_short);
    assert_eq!(report.copied, ["a.py"]);
    assert_eq!(read(&ws.notebooks, "b.py"), NOTEBOOK);
    let report = back(&kernel, &ws, &mut state).await;
    assert_eq!(report.copied, ["b.py"], "the rest follows on the next pass");
}
