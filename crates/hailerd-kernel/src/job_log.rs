//! The log of a long kernel job (an image build or download, an environment set-up): every
//! line it reported, the installers' and the engine's own output among them, in a file of its
//! own under Hailer's log folder (`<log folder>/jobs/`), and the steps the reply's lines carry.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use hailer_marimo::Report;
use hailer_protocol::{JobStep, KernelJobLine};

/// The folder job logs go to, inside the daemon's log folder.
pub(crate) const JOBS_FOLDER: &str = "jobs";

/// The folder this daemon logs to, once logging started.
static LOG_DIR: OnceLock<PathBuf> = OnceLock::new();

/// Says where the daemon logs: job logs go below this folder from now on. The first call wins.
pub fn set_log_dir(dir: &Path) {
    let _ = LOG_DIR.set(dir.to_owned());
}

/// The folder this daemon logs to (job logs go below it), once [`set_log_dir`] ran.
fn log_dir() -> Option<&'static Path> {
    LOG_DIR.get().map(PathBuf::as_path)
}

/// One job's log file. A file that cannot be made is no reason to fail the job: the job runs
/// on with no log (and says so in the daemon's log).
#[derive(Debug)]
pub struct JobLog {
    path: Option<PathBuf>,
    file: Mutex<Option<std::fs::File>>,
}

impl JobLog {
    /// A new log named after `kind` (`kernel-build`) and the time, in the daemon's log folder.
    pub fn create(kind: &str) -> Self {
        match log_dir() {
            Some(dir) => Self::create_in(&dir.join(JOBS_FOLDER), kind),
            None => Self::none(),
        }
    }

    /// A new log in `dir`.
    pub fn create_in(dir: &Path, kind: &str) -> Self {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let stamp: String = hailer_audit::format_rfc3339(hailer_audit::unix_millis_now())
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == 'T')
            .collect();
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{kind}-{stamp}-{serial}.log"));
        let opened = std::fs::create_dir_all(dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create_new(true)
                .write(true)
                .open(&path)
        });
        match opened {
            Ok(file) => Self {
                path: Some(path),
                file: Mutex::new(Some(file)),
            },
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "cannot create the job's log");
                Self::none()
            }
        }
    }

    fn none() -> Self {
        Self {
            path: None,
            file: Mutex::new(None),
        }
    }

    /// The log file, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends `line`.
    pub fn write(&self, line: &str) {
        if let Ok(mut file) = self.file.lock()
            && let Some(open) = file.as_mut()
            && let Err(error) = writeln!(open, "{line}")
        {
            tracing::warn!(%error, "cannot write the job's log");
            *file = None;
        }
    }

    /// Writes what `report` says (a step as a heading); a count has no words.
    pub fn record(&self, report: Report<'_>) {
        match report {
            Report::Step { name, .. } => self.write(&format!("==> {name}")),
            Report::Note(line) | Report::Output(line) => self.write(line),
            Report::Count { .. } => {}
        }
    }
}

/// The step a job is at, carried on the reply's lines.
#[derive(Debug, Default)]
pub struct JobSteps {
    step: Option<JobStep>,
}

impl JobSteps {
    /// The reply's line for `report`: a count changes the step's state and is carried by the
    /// next line, so it makes none.
    pub fn line(&mut self, report: Report<'_>) -> Option<KernelJobLine> {
        match report {
            Report::Step { name, total } => {
                self.step = Some(JobStep {
                    name: name.to_owned(),
                    done: None,
                    total,
                });
                Some(KernelJobLine::Progress {
                    line: name.to_owned(),
                    output: false,
                    step: self.step.clone(),
                })
            }
            Report::Count { done, total } => {
                if let Some(step) = self.step.as_mut() {
                    step.done = Some(done);
                    step.total = total.or(step.total);
                }
                None
            }
            Report::Note(line) => Some(KernelJobLine::say(line)),
            Report::Output(line) => Some(KernelJobLine::Progress {
                line: line.to_owned(),
                output: true,
                step: self.step.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn counts_ride_on_the_next_output_line_of_their_step() {
        let mut steps = JobSteps::default();
        let started = steps.line(Report::Step {
            name: "Installing packages",
            total: Some(3),
        });
        assert!(matches!(
            started,
            Some(KernelJobLine::Progress {
                output: false,
                step: Some(JobStep { total: Some(3), .. }),
                ..
            })
        ));
        assert_eq!(
            steps.line(Report::Count {
                done: 1,
                total: None
            }),
            None
        );
        let Some(KernelJobLine::Progress { output, step, .. }) =
            steps.line(Report::Output("Collecting six"))
        else {
            panic!("no line");
        };
        assert!(output);
        assert_eq!(
            step,
            Some(JobStep {
                name: "Installing packages".to_owned(),
                done: Some(1),
                total: Some(3)
            })
        );
        assert_eq!(
            steps.line(Report::Note("ready")),
            Some(KernelJobLine::say("ready"))
        );
    }

    #[test]
    fn a_log_holds_every_line_with_steps_as_headings() {
        let dir = tempfile::tempdir().unwrap();
        let log = JobLog::create_in(dir.path(), "kernel-build");
        log.record(Report::Step {
            name: "Building",
            total: None,
        });
        log.record(Report::Output("Step 1/2 : FROM x"));
        log.record(Report::Count {
            done: 1,
            total: Some(2),
        });
        let path = log.path().unwrap().to_owned();
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("kernel-build-")
        );
        drop(log);
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            "==> Building\nStep 1/2 : FROM x\n"
        );
    }
}
