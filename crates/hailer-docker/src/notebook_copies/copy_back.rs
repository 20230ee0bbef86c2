//! Copying the notebooks a kernel changed back to this machine, within a time and byte budget.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Duration;

use tokio::time::{Instant, timeout_at};

use super::allow_list::{self, MAX_FOLDERS, MAX_NOTEBOOK_BYTES, MAX_NOTEBOOKS, Refusal};
use super::host_files::{back_up, read_existing, set_marker, write_notebook};
use super::kernel_files::{KernelFiles, KernelRead};
use super::last_copied::{CopyReport, CopyState, Direction, KernelStamp, digest};
use crate::runtime::NOTEBOOKS_IN_KERNEL;

/// The most notebooks the kernel created that one session copies back, and their bytes.
pub(crate) const MAX_NEW_NOTEBOOKS: usize = 200;
/// The most bytes (100 MiB, counted over the notebooks' text) of notebooks the kernel created
/// that one session copies back; past it, further new notebooks stay in the kernel with a
/// warning. Notebooks that came from this machine do not count.
pub(crate) const MAX_NEW_BYTES: u64 = 100 * 1024 * 1024;
/// The most folders and entries one pass looks at.
const MAX_FOLDERS_WALKED: usize = 200;
const MAX_ENTRIES_WALKED: usize = 5000;
/// Folders marimo and Python make by themselves: not worth a warning.
const QUIET_FOLDERS: [&str; 2] = ["__marimo__", "__pycache__"];

/// How long a pass may take and how much it may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyLimits {
    /// How long the whole pass (listing and reading) may take; past it the pass stops and
    /// reports itself cut short.
    pub time: Duration,
    /// How many bytes of notebook text the pass may read from the kernel, judged by the
    /// sizes the kernel lists before each read; the notebook that would pass it and all
    /// after it wait for the next pass.
    pub bytes: u64,
}

impl CopyLimits {
    /// A pass while the kernel runs (every 15 s, after turns): the rest follows next time.
    pub fn background() -> Self {
        Self {
            time: Duration::from_secs(10),
            bytes: 50 * 1024 * 1024,
        }
    }

    /// The last pass before the kernel is removed.
    pub fn last() -> Self {
        Self {
            time: Duration::from_secs(30),
            bytes: (MAX_NOTEBOOKS * MAX_NOTEBOOK_BYTES) as u64,
        }
    }
}

/// A notebook in the kernel that may come back.
struct Candidate {
    name: String,
    path: String,
    stamp: Option<KernelStamp>,
}

/// Copies the notebooks that changed in the kernel into `notebooks_dir`, backing up into
/// `state_dir` any version of this machine that changed too. Never deletes a file here.
pub async fn copy_back(
    kernel: &impl KernelFiles,
    notebooks_dir: &Path,
    state_dir: &Path,
    state: &mut CopyState,
    limits: CopyLimits,
) -> CopyReport {
    let mut report = CopyReport::new(Direction::BackFromKernel);
    let deadline = Instant::now() + limits.time;
    let candidates = walk(kernel, deadline, &mut report).await;
    let candidates = drop_case_duplicates(candidates, &mut report);
    let mut read_bytes = 0u64;
    let mut warnings = Vec::new();
    for candidate in candidates {
        if Instant::now() >= deadline {
            report.cut_short = true;
            break;
        }
        let known = state.copied.get(&candidate.name);
        if candidate.stamp.is_some() && known.and_then(|k| k.stamp) == candidate.stamp {
            report.unchanged += 1;
            continue;
        }
        let size = candidate.stamp.map_or(0, |s| s.size);
        if size > MAX_NOTEBOOK_BYTES as u64 {
            report.refused.push((candidate.name, Refusal::TooLarge));
            continue;
        }
        if read_bytes + size > limits.bytes {
            report.cut_short = true;
            break;
        }
        let read = timeout_at(
            deadline,
            kernel.read(&candidate.path, MAX_NOTEBOOK_BYTES as u64),
        )
        .await;
        let text = match read {
            Err(_) => {
                report.cut_short = true;
                break;
            }
            Ok(Err(error)) => {
                warnings.push(format!("{}: {error}", candidate.name));
                continue;
            }
            Ok(Ok(KernelRead::TooLarge)) => {
                report.refused.push((candidate.name, Refusal::TooLarge));
                continue;
            }
            Ok(Ok(KernelRead::NotText)) => {
                report.refused.push((candidate.name, Refusal::NotText));
                continue;
            }
            Ok(Ok(KernelRead::Text(text))) => text,
        };
        read_bytes += text.len() as u64;
        if let Err(why) = allow_list::check_contents(text.as_bytes()) {
            report.refused.push((candidate.name, why));
            continue;
        }
        let new_digest = digest(&text);
        let last_digest = known.map(|k| k.digest.clone());
        if last_digest.as_deref() == Some(new_digest.as_str()) {
            state.remember(&candidate.name, new_digest, candidate.stamp);
            report.unchanged += 1;
            continue;
        }
        let is_new = last_digest.is_none();
        if is_new
            && (state.new_notebooks >= MAX_NEW_NOTEBOOKS
                || state.new_bytes + text.len() as u64 > MAX_NEW_BYTES)
        {
            warnings.push(format!(
                "{}: this session copied back {MAX_NEW_NOTEBOOKS} new notebooks or 100 MiB \
                 already; new ones stay in the kernel",
                candidate.name
            ));
            continue;
        }
        match bring_back(
            notebooks_dir,
            state_dir,
            &candidate.name,
            &text,
            last_digest.as_deref(),
        ) {
            Ok(Landed::Written { backup }) => {
                report.backups.extend(backup);
                report.copied.push(candidate.name.clone());
                if is_new {
                    state.new_notebooks += 1;
                    state.new_bytes += text.len() as u64;
                }
            }
            Ok(Landed::AlreadyThere) => report.unchanged += 1,
            Err(error) => {
                warnings.push(format!("{}: {error}", candidate.name));
                continue;
            }
        }
        state.remember(&candidate.name, new_digest, candidate.stamp);
    }
    for backup in &report.backups {
        report.warnings.push(format!(
            "A notebook changed both here and in the kernel; this machine's version is saved as {}.",
            backup.display()
        ));
    }
    for warning in warnings {
        if let Some(warning) = state.first_time(format!("Not copied back: {warning}")) {
            report.warnings.push(warning);
        }
    }
    if report.cut_short {
        report.warnings.push(
            "The copy back from the kernel was cut short (time or size budget); the files here \
             are as they were, and the rest follows on the next copy."
                .to_owned(),
        );
    }
    report
}

/// What happened on this machine.
enum Landed {
    Written { backup: Option<std::path::PathBuf> },
    AlreadyThere,
}

/// Writes `text` to `name`, first saving this machine's version when it changed since the last
/// copy (or was never copied).
fn bring_back(
    notebooks_dir: &Path,
    state_dir: &Path,
    name: &str,
    text: &str,
    last_digest: Option<&str>,
) -> std::io::Result<Landed> {
    std::fs::create_dir_all(notebooks_dir)?;
    let existing = read_existing(notebooks_dir, name);
    let mut backup = None;
    if let Some(existing) = existing {
        let here = digest(&existing);
        if here == digest(text) {
            return Ok(Landed::AlreadyThere);
        }
        if last_digest != Some(here.as_str()) {
            backup = Some(back_up(state_dir, name, &existing)?);
        }
    }
    write_notebook(notebooks_dir, name, text)?;
    set_marker(state_dir)?;
    Ok(Landed::Written { backup })
}

/// The kernel's notebooks folder, breadth first, within the walk's limits.
async fn walk(
    kernel: &impl KernelFiles,
    deadline: Instant,
    report: &mut CopyReport,
) -> Vec<Candidate> {
    let prefix = format!("{NOTEBOOKS_IN_KERNEL}/");
    let mut candidates = Vec::new();
    let mut queue = VecDeque::from([(NOTEBOOKS_IN_KERNEL.to_owned(), 0usize)]);
    let (mut folders, mut entries_seen) = (0usize, 0usize);
    while let Some((folder, depth)) = queue.pop_front() {
        folders += 1;
        if folders > MAX_FOLDERS_WALKED {
            report.cut_short = true;
            break;
        }
        let entries = match timeout_at(deadline, kernel.list(&folder)).await {
            Ok(Ok(entries)) => entries,
            Ok(Err(error)) => {
                report
                    .warnings
                    .push(format!("Could not list {folder} in the kernel: {error}"));
                continue;
            }
            Err(_) => {
                report.cut_short = true;
                break;
            }
        };
        for entry in entries {
            entries_seen += 1;
            if entries_seen > MAX_ENTRIES_WALKED {
                report.cut_short = true;
                return candidates;
            }
            let Some(name) = entry.path.strip_prefix(&prefix).map(str::to_owned) else {
                continue;
            };
            let base = name.rsplit('/').next().unwrap_or(&name).to_owned();
            if entry.is_directory {
                if base.starts_with('.') || base.starts_with("__") {
                    if !QUIET_FOLDERS.contains(&base.as_str()) {
                        report.refused.push((format!("{name}/"), Refusal::Hidden));
                    }
                } else if depth < MAX_FOLDERS {
                    queue.push_back((entry.path.clone(), depth + 1));
                }
                continue;
            }
            if !name.ends_with(".py") {
                continue;
            }
            match allow_list::check_name(&name) {
                Ok(()) => candidates.push(Candidate {
                    name,
                    path: entry.path,
                    stamp: entry.stamp,
                }),
                Err(why) => report.refused.push((name, why)),
            }
        }
    }
    candidates.sort_by(|a, b| a.name.cmp(&b.name));
    candidates
}

/// Names that differ only in case would land on one file on some machines: none of them comes
/// back. Past the notebook limit, none comes back either.
fn drop_case_duplicates(candidates: Vec<Candidate>, report: &mut CopyReport) -> Vec<Candidate> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for candidate in &candidates {
        *counts.entry(candidate.name.to_lowercase()).or_default() += 1;
    }
    let mut kept = Vec::new();
    for candidate in candidates {
        if counts[&candidate.name.to_lowercase()] > 1 {
            report
                .refused
                .push((candidate.name, Refusal::CaseDuplicate));
        } else if kept.len() >= MAX_NOTEBOOKS {
            report.refused.push((candidate.name, Refusal::OverLimit));
        } else {
            kept.push(candidate);
        }
    }
    kept
}
