//! Copying this machine's notebooks into a fresh kernel, before anyone uses it.

use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt as _;

use super::host_files::{HostNotebook, find_notebooks};
use super::kernel_files::KernelFiles;
use super::last_copied::{CopyReport, CopyState, Direction, digest};
use crate::runtime::NOTEBOOKS_IN_KERNEL;

/// How long the whole copy in may take.
pub(crate) const COPY_IN_TIME: Duration = Duration::from_secs(30);
/// Uploads in flight at once.
const PARALLEL_UPLOADS: usize = 8;

/// Copies every allowed notebook under `notebooks_dir` into the kernel's notebooks folder and
/// remembers what it copied in `state`.
pub async fn copy_in(
    kernel: &impl KernelFiles,
    notebooks_dir: &Path,
    state: &mut CopyState,
) -> CopyReport {
    let mut report = CopyReport::new(Direction::IntoKernel);
    let root = notebooks_dir.to_path_buf();
    let (found, refused) = tokio::task::spawn_blocking(move || find_notebooks(&root))
        .await
        .unwrap_or_default();
    report.refused = refused;
    let deadline = tokio::time::Instant::now() + COPY_IN_TIME;
    let found_count = found.len();
    let mut pending = Vec::with_capacity(found_count);
    for notebook in found {
        pending.push(timed_upload(kernel, notebook, deadline));
    }
    let uploads = futures_util::stream::iter(pending).buffer_unordered(PARALLEL_UPLOADS);
    let outcomes: Vec<_> = uploads.collect().await;
    let mut failures = Vec::new();
    for (notebook, outcome) in outcomes {
        match outcome {
            Ok(Ok(stamp)) => {
                state.remember(&notebook.name, digest(&notebook.text), stamp);
                report.copied.push(notebook.name.clone());
            }
            Ok(Err(error)) => failures.push(format!("{}: {error}", notebook.name)),
            Err(_) => report.cut_short = true,
        }
    }
    report.copied.sort();
    if report.cut_short {
        report.warnings.push(format!(
            "Copying the notebooks into the kernel took longer than {} s; {} of {} were copied.",
            COPY_IN_TIME.as_secs(),
            report.copied.len(),
            found_count
        ));
    }
    if let Some(first) = failures.first() {
        report.warnings.push(format!(
            "{} notebook(s) could not be copied into the kernel; the first: {first}",
            failures.len()
        ));
    }
    report
}

/// One upload under the copy's deadline. A named function (not a closure) so the future's
/// lifetimes stay simple enough for callers that need it `Send`.
async fn timed_upload(
    kernel: &impl KernelFiles,
    notebook: HostNotebook,
    deadline: tokio::time::Instant,
) -> (
    HostNotebook,
    Result<Result<Option<super::last_copied::KernelStamp>, String>, tokio::time::error::Elapsed>,
) {
    let outcome = tokio::time::timeout_at(deadline, upload(kernel, &notebook)).await;
    (notebook, outcome)
}

async fn upload(
    kernel: &impl KernelFiles,
    notebook: &HostNotebook,
) -> Result<Option<super::last_copied::KernelStamp>, String> {
    let (folder, file_name) = match notebook.name.rsplit_once('/') {
        Some((folder, file_name)) => (format!("{NOTEBOOKS_IN_KERNEL}/{folder}"), file_name),
        None => (NOTEBOOKS_IN_KERNEL.to_owned(), notebook.name.as_str()),
    };
    kernel
        .create(&folder, file_name, notebook.text.as_bytes())
        .await
}
